/**
 * The PTX instruction vocabulary the parser accepts: base opcodes (modern ISA 9.x plus the
 * ISA 1.1 set of the seeds) and the modifier words that may follow them. An opcode or modifier
 * outside these sets is a located error, never a silent skip.
 */
export const OPCODES = new Set([
    'abs', 'activemask', 'add', 'addc', 'alloca', 'and', 'applypriority', 'atom', 'bar', 'barrier',
    'bfe', 'bfi', 'bfind', 'bmsk', 'bra', 'brev', 'brkpt', 'brx', 'call', 'clz', 'cnot', 'copysign',
    'cos', 'cp', 'createpolicy', 'cvt', 'cvta', 'discard', 'div', 'dp2a', 'dp4a', 'elect', 'ex2',
    'exit', 'fence', 'fma', 'fns', 'getctarank', 'griddepcontrol', 'isspacep', 'istypep', 'ld',
    'ldmatrix', 'ldu', 'lg2', 'lop3', 'mad', 'mad24', 'madc', 'mapa', 'match', 'max', 'mbarrier',
    'membar', 'min', 'mma', 'mov', 'movmatrix', 'mul', 'mul24', 'multimem', 'nanosleep', 'neg',
    'not', 'or', 'pmevent', 'popc', 'prefetch', 'prefetchu', 'prmt', 'rcp', 'red', 'redux', 'rem',
    'ret', 'rsqrt', 'sad', 'selp', 'set', 'setmaxnreg', 'setp', 'shf', 'shfl', 'shl', 'shr', 'sin',
    'slct', 'sqrt', 'st', 'stackrestore', 'stacksave', 'stmatrix', 'sub', 'subc', 'suld', 'suq',
    'sured', 'sust', 'szext', 'tanh', 'tcgen05', 'tensormap', 'testp', 'tex', 'tld4', 'trap', 'txq',
    'vabsdiff', 'vabsdiff2', 'vabsdiff4', 'vadd', 'vadd2', 'vadd4', 'vavrg2', 'vavrg4', 'vmad',
    'vmax', 'vmax2', 'vmax4', 'vmin', 'vmin2', 'vmin4', 'vote', 'vset', 'vset2', 'vset4', 'vshl',
    'vshr', 'vsub', 'vsub2', 'vsub4', 'wgmma', 'wmma', 'xor', 'clusterlaunchcontrol', 'ex2',
]);
export const TYPE_NAMES = new Set([
    'b1', 'b8', 'b16', 'b32', 'b64', 'b128', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64',
    'f16', 'f16x2', 'bf16', 'bf16x2', 'f32', 'f64', 'tf32', 'pred', 'e4m3', 'e5m2', 'e4m3x2',
    'e5m2x2', 'u4', 's4', 'u2', 's2', 'f32x2', 'e2m1', 'e2m3', 'e3m2', 'ue8m0', 'u16x2', 's16x2',
]);
const MODIFIERS = new Set([
    ...TYPE_NAMES,
    // state spaces
    'global', 'shared', 'local', 'const', 'param', 'generic', 'tex', 'surf',
    // comparisons and boolean ops
    'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'lo', 'ls', 'hi', 'hs', 'equ', 'neu', 'ltu', 'leu', 'gtu',
    'geu', 'num', 'nan', 'and', 'or', 'xor', 'popc', 'not',
    // rounding / precision
    'rn', 'rz', 'rm', 'rp', 'rni', 'rzi', 'rmi', 'rpi', 'rna', 'rs', 'ftz', 'sat', 'satfinite',
    'approx', 'full', 'relu', 'NaN', 'xorsign', 'abs', 'oob', 'noftz',
    // integer forms
    'wide', 'cc', 'shiftamt', 'clamp', 'wrap', 'l', 'r', 'g', 'lo', 'hi',
    // video instructions (vmad plus-one and scaling)
    'po', 'shr7', 'shr15',
    // cp.async.mbarrier.arrive.noinc
    'noinc',
    // control flow and sync
    'uni', 'sync', 'aligned', 'arrive', 'red', 'warp', 'noreturn', 'up', 'down', 'bfly', 'idx',
    'any', 'all', 'ballot', 'to', 'trap', 'zero',
    // memory semantics, scopes, cache operators
    'weak', 'relaxed', 'acquire', 'release', 'acq_rel', 'sc', 'mmio', 'volatile', 'cta', 'gpu',
    'sys', 'cluster', 'gl', 'nc', 'ca', 'cg', 'cs', 'lu', 'cv', 'wb', 'wt', 'proxy', 'alias',
    'async', 'bulk', 'tensor', 'op_restrict', 'release_sync', 'level',
    // vectors
    'v2', 'v4', 'v8',
    // atomics
    'add', 'sub', 'inc', 'dec', 'min', 'max', 'exch', 'cas',
    // testp
    'finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal',
    // prmt
    'f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16',
    // tensor core, async copy, mbarrier
    'load', 'store', 'mma', 'row', 'col', 'a', 'b', 'c', 'd', 'trans', 'commit_group', 'wait_group',
    'wait_all', 'init', 'arrive_drop', 'test_wait', 'try_wait', 'pending_count', 'expect_tx',
    'complete_tx', 'noComplete', 'parity', 'inval', 'expect', 'mbarrier', 'complete_tx', 'block_scale',
    'kind', 'sp', 'ordered_metadata', 'wait', 'launch_dependents', 'multicast', 'im2col', 'tile',
    // texture / surface
    '1d', '2d', '3d', 'a1d', 'a2d', 'cube', 'acube', '2dms', 'a2dms', 'base', 'grad', 'width',
    'height', 'depth', 'channel_data_type', 'channel_order', 'normalized_coords', 'filter_mode',
    'addr_mode_0', 'addr_mode_1', 'addr_mode_2', 'array_size', 'num_mipmap_levels', 'num_samples',
    'force_unnormalized_coords', 'samplerref', 'texref', 'surfref', 'p',
    // misc
    'none', 'L1', 'L2', 'evict_last', 'evict_first', 'evict_normal', 'evict_unchanged',
    'no_allocate', 'fraction', 'range', 'cta_group', 'shape', 'rcp', 'sqrt', 'pack',
]);
/** True when `mod` (without its dot) is a modifier some PTX instruction takes. */
export function isKnownModifier(mod) {
    if (MODIFIERS.has(mod))
        return true;
    if (mod.includes('::'))
        return true; // cache hints and scoped spaces: L2::128B, shared::cta
    if (/^m\d+n\d+(k\d+)?$/.test(mod))
        return true; // mma / ldmatrix shapes
    if (/^x\d+$/.test(mod))
        return true; // ldmatrix .x1/.x2/.x4
    if (/^v\d+$/.test(mod))
        return true;
    return false;
}
/** Arithmetic, logic and conversion opcodes: none takes a .v2/.v3/.v4 modifier in any ISA that was implemented. */
export const VECTOR_ALU = new Set([
    'add', 'sub', 'mul', 'mad', 'div', 'rem', 'abs', 'neg', 'min', 'max', 'and', 'or', 'xor', 'not', 'cnot', 'shl', 'shr',
    'cvt', 'set', 'setp', 'selp', 'slct', 'fma', 'rcp', 'sqrt', 'rsqrt', 'sin', 'cos', 'lg2', 'ex2', 'mul24', 'mad24', 'sad', 'frc',
]);
//# sourceMappingURL=opcodes.js.map