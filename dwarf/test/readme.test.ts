/** README.md's example is this folder's readme-example.ts, verbatim, and it runs. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { whereIs } from './readme-example.js';

const here = dirname(fileURLToPath(import.meta.url));

describe('README', () => {
  it('shows readme-example.ts as it is (imports named as a user of the package writes them)', () => {
    const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
    const example = readFileSync(join(here, 'readme-example.ts'), 'utf8').replace("from '../src/index.js'", "from '@ptxdbg/dwarf'");
    expect(readme).toContain('```ts\n' + example + '```');
  });

  it('finds sum_squares at lines.c:12 for 0x1013 (llvm-dwarfdump: row 0x1013 line 12 file 1; DW_TAG_subprogram sum_squares [0x1000, 0x1029))', () => {
    const text = whereIs(join(here, 'fixtures'), 'lines.v5', 0x1013n);
    expect(text).toMatch(/^sum_squares at \/.*\/lines\.c:12$/);
  });
});
