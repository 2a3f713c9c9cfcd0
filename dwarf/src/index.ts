/**
 * @ptxdbg/dwarf: a DWARF decoder over section bytes (public API). Imports nothing outside this
 * package; see README.md.
 *
 *   const dwarf = new Dwarf(sections, symbols);                 // never throws
 *   const scopes = new ScopeIndex(dwarf);
 *   for (const v of scopes.variablesAt(pc)) {
 *     const r = scopes.evaluateVariable(v, { readRegister, readMemory, callFrameCfa });
 *   }
 *   dumpDebugInfo(dwarf); dwarf.warnings.list;
 *   readLineProgram(sections.get('.debug_line')!, 0, { sections }).rows;
 */
export * from './constants.js';
export { dumpDebugInfo, formatAttributeValue } from './dump.js';
export { Dwarf, type AttrValue, type DwarfSymbols, type LocationDescription } from './dwarf.js';
export {
  decodeExpression, evaluate, expressionFromBytes, formatOperation, formatOperations, ptxRegisterName, ptxRegisterValue,
  type EvalContext, type EvalResult, type Expression, type ExprEncoding, type Location, type Operation, type Piece,
  type SymbolicAddress,
} from './expr.js';
export {
  Abbreviations, Die, EntriesCursor, fixedFormSize, parseAbbreviations, parseUnitHeader, readForm, skipForm, Unit,
  type Abbreviation, type Attribute, type AttributeSpec, type DieNode, type Encoding, type RawValue, type UnitHeader,
} from './info.js';
export {
  readAranges, readLocationList, readPubNames, readRangeList,
  type ArangeSet, type Bound, type LocationListEntry, type PubNameSet, type Range,
} from './lists.js';
export {
  DwarfError, Reader, sectionFromBytes, Warnings, warningText, debugInfoOffset, debugAbbrevOffset, unitOffset,
  toDebugInfoOffset, toUnitOffset,
  type DebugAbbrevOffset, type DebugInfoOffset, type DebugStrOffset, type DwarfErrorKind, type LocListsOffset,
  type RangeListsOffset, type Relocation, type RelocTarget, type SectionData, type UnitOffset,
} from './reader.js';
export {
  locationOpsAt, rangesContain, ScopeIndex,
  type FunctionInfo, type Scope, type ScopeKind, type VariableInfo, type VisibleVariable,
} from './scope.js';
export {
  pointerSpace, resolveType, sizeOf, typeName, TypeTable, VOID,
  type AggregateType, type DwarfType, type EnumType, type Enumerator, type Member, type PointerType, type TypeNameStyle,
} from './types.js';
export {
  DW_LNCT, DW_LNE, DW_LNS, lineFilePath, LineTable, lineTableOf, readLinePrograms, readLineProgram,
  type LineFileEntry, type LineLocation, type LineProgram, type LineProgramHeader, type LineProgramOptions, type LineRow,
} from './line.js';
