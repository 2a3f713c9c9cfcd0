/**
 * `ptxdbg extract APP [-o DIR]`: the device code nvcc embedded in a CUDA program (its
 * `.nv_fatbin` section, decompressed): lists every entry, and writes each PTX to DIR so the
 * kernels can be opened in the debugger (`ptxdbg DIR/app.1.sm_80.ptx`).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ElfError, elfSections } from '../host/elf.js';
import { FatbinError, parseFatbin } from '../host/fatbin.js';
import { readBounded, ReadError } from '../io/bounded.js';
import { EXIT_FINDINGS } from './exit.js';
import { UsageError } from './common.js';

/** A CUDA executable is read whole: the fatbinary sits anywhere in it. */
const MAX_APP_BYTES = 1 << 30;

export function extractCommand(app: string, outDir: string | undefined): number {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readBounded(app, MAX_APP_BYTES));
  } catch (e) {
    if (e instanceof ReadError) throw new UsageError(e.message);
    throw e;
  }
  let fatbin: Uint8Array;
  try {
    if (bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === 0xba55ed50) fatbin = bytes;
    else {
      const s = elfSections(bytes).find((x) => x.name === '.nv_fatbin');
      if (!s) {
        process.stderr.write(`ptxdbg: ${app} has no .nv_fatbin section: it holds no CUDA device code (or was built with -cudart static and stripped)\n`);
        return EXIT_FINDINGS;
      }
      fatbin = bytes.subarray(s.offset, s.offset + s.size);
    }
    const entries = parseFatbin(fatbin);
    const stem = basename(app);
    let n = 0;
    for (const e of entries) {
      const what = e.kind === 'ptx' ? `PTX ${e.version[0]}.${e.version[1]} for compute_${e.arch}` : e.kind === 'elf' ? `cubin for sm_${e.arch}` : 'unknown entry';
      let line = `${what}, ${e.data.length} bytes${e.compression === 'none' ? '' : ` (${e.compression}-compressed)`}`;
      if (e.kind === 'ptx' && outDir) {
        mkdirSync(outDir, { recursive: true });
        const file = join(outDir, `${stem}.${++n}.sm_${e.arch}.ptx`);
        writeFileSync(file + '.tmp', e.data);
        renameSync(file + '.tmp', file);
        line += ` -> ${file}`;
      }
      process.stdout.write(line + '\n');
    }
    if (!entries.some((e) => e.kind === 'ptx')) process.stderr.write(`ptxdbg: ${app} embeds no PTX (only cubins): rebuild with -arch=sm_80 or -gencode ...,code=compute_80 to keep PTX\n`);
    return 0;
  } catch (e) {
    if (e instanceof ElfError || e instanceof FatbinError) {
      process.stderr.write(`ptxdbg: ${app}: ${e.message}\n`);
      return EXIT_FINDINGS;
    }
    throw e;
  }
}
