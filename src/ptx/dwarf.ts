/**
 * The DWARF of a PTX module: the bridge between the PTX parser and the standalone decoder in
 * `dwarf/` (which knows nothing of PTX). It assembles the module's `.section`s into bytes
 * (dwarf-sections.ts) and hands the decoder the module's symbols through `DwarfSymbols`.
 */
import { Dwarf, Warnings, type SectionData } from '../../dwarf/src/index.js';
import type { PtxModule } from './ast.js';
import { assembleSections, defaultResolver, SymbolTable, type SymbolResolver } from './dwarf-sections.js';
import { parsePtx } from './parser.js';

export interface PtxDwarfOptions {
  /** Addresses for labels and variables; default: `defaultResolver` (see dwarf-sections.ts). */
  readonly resolver?: SymbolResolver;
  /** Warning list to append to (default: a new one). */
  readonly warnings?: Warnings;
}

const decoded = new WeakMap<PtxModule, Dwarf>();

/**
 * The module's DWARF with default options, decoded once per module: the debugger, the race
 * checker's variable names and every front end share this one decode.
 */
export function moduleDwarf(module: PtxModule): Dwarf {
  let d = decoded.get(module);
  if (!d) { d = dwarfFromModule(module); decoded.set(module, d); }
  return d;
}

/** Assemble and wrap the DWARF sections of a parsed module. Never throws. */
export function dwarfFromModule(module: PtxModule, options: PtxDwarfOptions = {}): Dwarf {
  const warnings = options.warnings ?? new Warnings();
  const resolver = options.resolver ?? defaultResolver;
  let symbols: SymbolTable | undefined;
  let sections: ReadonlyMap<string, SectionData> = new Map();
  try {
    symbols = new SymbolTable(module);
    sections = assembleSections(module, resolver, warnings, symbols).sections;
  } catch (e) {
    warnings.error(e, '.section');
  }
  const table = symbols;
  return new Dwarf(sections, table && {
    fileName: (index) => table.files.get(index),
    instructionAddress: (fn, index) => {
      const f = table.functions.get(fn);
      return f && resolver.instructionAddress({ function: f.function, functionIndex: f.functionIndex, instruction: index });
    },
  }, warnings);
}

/** Parse PTX text and decode its DWARF. Never throws. */
export function dwarfFromPtx(source: string, fileName = '<input>', options: PtxDwarfOptions = {}): Dwarf {
  return dwarfFromModule(parsePtx(source, fileName).module, options);
}
