/**
 * The PTX instruction vocabulary the parser accepts: base opcodes (modern ISA 9.x plus the
 * ISA 1.1 set of the seeds) and the modifier words that may follow them. An opcode or modifier
 * outside these sets is a located error, never a silent skip.
 */
export declare const OPCODES: ReadonlySet<string>;
export declare const TYPE_NAMES: ReadonlySet<string>;
/** True when `mod` (without its dot) is a modifier some PTX instruction takes. */
export declare function isKnownModifier(mod: string): boolean;
/** Arithmetic, logic and conversion opcodes: none takes a .v2/.v3/.v4 modifier in any ISA that was implemented. */
export declare const VECTOR_ALU: ReadonlySet<string>;
