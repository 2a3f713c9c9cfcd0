/**
 * ptxdbg's DWARF decoder: public API.
 *
 *   const dwarf = Dwarf.fromModule(module, { resolver });       // never throws
 *   const scopes = new ScopeIndex(dwarf);
 *   for (const v of scopes.variablesAtInstruction('_Z6vecAddPKfS0_Pfi', 12)) {
 *     const r = scopes.evaluateVariable(v, { readRegister, readMemory, callFrameCfa });
 *   }
 *   dumpDebugInfo(dwarf); dwarf.warnings.list;
 */
export {
  assembleSections, defaultResolver, splitDefaultAddress, SymbolTable,
  type AssembledSections, type InstructionRef, type SymbolResolver, type VariableRef,
} from '../ptx/dwarf-sections.js';
export * from './constants.js';
export { dumpDebugInfo, dwarfCommand, dwarfDump, formatAttributeValue, type DwarfCommandResult } from './dump.js';
export { Dwarf, type AttrValue, type DwarfOptions, type LocationDescription } from './dwarf.js';
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
  type AggregateType, type DwarfType, type EnumType, type Enumerator, type Member, type TypeNameStyle,
} from './types.js';
