/**
 * Issue #27: the commands a cuda-gdb / gdb / rr user types, each run in batch (runBatch, what
 * `ptxdbg --batch` prints) on a sample, with the output expected from the gdb / cuda-gdb / rr
 * manuals' wording and the sample's CUDA source (never from ptxdbg's own output).
 *
 * Samples (values from their kernel.cu and input files):
 *   O: samples/origin_flow, stopped by `break 16` + `run` at line 16 `s[t] = b;` in thread (0,0,0):
 *      in[t] = 10t (in/in.bin), t = 0, a = in[t] + 1 = 1, b = twice(a) = 2a = 2; one block of 64
 *      threads (two warps); twice(int v) on lines 3-8; the next hit of line 16 is warp 1's, thread 32.
 *   S: samples/saxpy, stopped by `break 15` + `run` at line 15 `y[i] = axpy(a, xi, yi);` in block 0
 *      thread 0: n = 200, a = 2.5, i = 0, xi = x[0] = 7.75 (in/x.bin); axpy on lines 3-7.
 *   V: samples/vars_structs, stopped by `break 64` + `run` (line 64 `__syncthreads();`) in block 0
 *      thread 0: i = 0, `local[k] = (k == 11) ? i : 0` (12 ints), label[k] = 'a' + (i + k) % 26 for
 *      k < 7 then 0; thread 5: i = 5.
 *   T: samples/bug_trap, stopped by `run` at the __trap() of line 8 in thread (45,0,0), whose
 *      j = idx[45] (line 6) is out of range.
 * A command that fails must say so (exit status 1 in batch); those expected to fail are marked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBatch } from '../../src/cli/debug.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { ROOT } from '../helpers.js';

type Sample = 'O' | 'S' | 'V' | 'T';
interface Case {
  /** What the user types, run after `setup`. */
  readonly cmd: string;
  readonly sample: Sample;
  /** Commands run first (default: stop at the sample's breakpoint). */
  readonly setup?: readonly string[];
  /** The command's output must match. */
  readonly want: RegExp;
  /** The command must fail (batch exit status 1), with the message matched. */
  readonly fails?: boolean;
}

const DIRS: Record<Sample, string> = { O: 'origin_flow', S: 'saxpy', V: 'vars_structs', T: 'bug_trap' };
const STOP: Record<Sample, string[]> = { O: ['break 16', 'run'], S: ['break 15', 'run'], V: ['break 64', 'run'], T: ['run'] };

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-cmds-'));
  writeFileSync(join(tmp, 'cmds.gdb'), 'print t\nprint b\n');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const c = (sample: Sample, cmd: string, want: RegExp, setup?: readonly string[], fails = false): Case => ({ sample, cmd, want, ...(setup ? { setup } : {}), fails });
const O = (cmd: string, want: RegExp, setup?: readonly string[]): Case => c('O', cmd, want, setup);
const S = (cmd: string, want: RegExp, setup?: readonly string[]): Case => c('S', cmd, want, setup);
const V = (cmd: string, want: RegExp, setup?: readonly string[]): Case => c('V', cmd, want, setup);
/** A command refused (by design or as gdb refuses it): one line, the reason. */
const refused = (cmd: string, want: RegExp, setup?: readonly string[]): Case => c('O', cmd, want, setup, true);
const AT16 = /16\t {4}s\[t\] = b;/;
const ONE_LINE = (re: RegExp): RegExp => new RegExp(`^(?!.*\\n)${re.source}$`, 's');

const CASES: Case[] = [
  // ---- print and its formats (gdb manual: Output Formats) ----
  O('print t', /^\$1 = 0$/),
  O('p b', /^\$1 = 2$/),
  O('print a * 2', /^\$1 = 2$/),
  O('print/x 255', /^\$1 = 0xff$/),
  O('p/t 5', /^\$1 = 101$/),
  O('p/o 8', /^\$1 = 010$/),
  O('p/c 65', /^\$1 = 65 'A'$/),
  O('p/d \'A\'', /^\$1 = 65$/),
  O('p sizeof(int)', /^\$1 = 4$/),
  // alignof, decltype and {TYPE} ADDR (gdb manual: Expressions; C's alignment rules for vars_structs' types)
  V('p alignof(Particle)', /^\$1 = 8$/), // its widest member is double mass
  V('p alignof(Vec2)', /^\$1 = 4$/),
  V('p _Alignof(char)', /^\$1 = 1$/),
  V('p sizeof(decltype(p.hist))', /^\$1 = 8$/), // short[4]
  V('whatis decltype(p.mass)', /^type = double$/),
  V('whatis Particle', /^type = Particle$/),
  V('p {int} &sTile[1]', /^\$1 = 1$/), // warp 0 stored sTile[t] = t * t before the barrier
  V('p {int} (sTile + 3)', /^\$1 = 9$/),
  V('p {short[4]} &p.hist', /^\$1 = \{-3, -3, -3, -3\}$/),
  O('p threadIdx', /^\$1 = \{x = 0, y = 0, z = 0\}$/),
  O('p blockDim.x', /^\$1 = 64$/),
  O('p gridDim', /^\$1 = \{x = 1, y = 1, z = 1\}$/),
  O('p in[1]', /^\$1 = 10$/, ['break 14', 'run']),
  O('p *in@4', /^\$1 = \{0, 10, 20, 30\}$/, ['break 14', 'run']),
  O('p $', /^\$2 = 2$/, ['break 16', 'run', 'print b']),
  O('p $1 + 1', /^\$2 = 3$/, ['break 16', 'run', 'print b']),
  O('output b', /^2$/),
  O('call b', /^\$1 = 2$/),
  // ---- print settings that change what print shows (gdb manual: Print Settings) ----
  V('print local', /^\$1 = \{0 <repeats 12 times>\}$/),
  V('print local', /^\$1 = \{0 <repeats 11 times>, 5\}$/, ['break 64', 'run', 'cuda thread (5,0,0)']),
  V('print local', /^\$1 = \{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0\}$/, ['break 64', 'run', 'set print repeats 20']),
  V('print local', /^\$1 = \{0, 0, 0, 0\.\.\.\}$/, ['break 64', 'run', 'set print repeats unlimited', 'set print elements 4']),
  V('print label', /^\$1 = "abcdefg"$/),
  // ---- convenience variables (gdb manual: Convenience Variables) ----
  O('p $i + 1', /^\$1 = 4$/, ['break 16', 'run', 'set $i = 3']),
  O('set $i = 3', /^$/),
  O('show convenience', /^\$i = 3$/m, ['break 16', 'run', 'set $i = 3']),
  O('p $_lane', /^\$1 = 0$/),
  O('p $_warp', /^\$1 = 1$/, ['break 16', 'run', 'cuda warp 1 lane 0']),
  O('p $_lane', /^\$1 = 3$/, ['break 16', 'run', 'cuda warp 1 lane 3']),
  O('p $_thread', /^\$1 = 5$/, ['break 16', 'run', 'cuda thread (5,0,0)']),
  S('p $_block', /^\$1 = 1$/, ['break 15', 'run', 'cuda block (1,0,0) thread (0,0,0)']),
  O('p $i * $i', /^\$1 = 49$/, ['break 16', 'run', 'set $i = 7']),
  // ---- echo, printf, shell (gdb manual: Commands for Controlled Output) ----
  O('echo hello\\n', /^hello$/),
  O('printf "%d %d\\n", t, b', /^0 2$/),
  O('printf "%5.2f|\\n", 1.5', /^ 1\.50\|$/),
  O('printf "%x\\n", 255', /^ff$/),
  O('printf "%c%c\\n", 72, 105', /^Hi$/),
  O('printf "%s\\n", "text"', /^text$/),
  O('printf "%03d\\n", 7', /^007$/),
  O('shell echo from-the-shell', /^from-the-shell$/),
  // ---- set / show (gdb manual: Print Settings, Screen Size, Optional Warnings) ----
  O('show print repeats', /^Threshold for repeated print elements is 10\.$/),
  O('show print repeats', /^Threshold for repeated print elements is 4\.$/, ['set print repeats 4']),
  O('show print elements', /^Limit on string chars or array elements to print is 200\.$/),
  O('show print pretty', /^Pretty formatting of structures is off\.$/),
  O('show print pretty', /^Pretty formatting of structures is on\.$/, ['set print pretty on']),
  O('show print address', /^Printing of addresses is on\.$/),
  O('set pagination off', /^$/),
  O('show pagination', /^State of pagination is off\.$/, ['set pagination off']),
  O('set confirm off', /^$/),
  O('show confirm', /^Whether to confirm potentially dangerous operations is off\.$/, ['set confirm off']),
  O('show width', /^Number of characters gdb thinks are in a line is unlimited\.$/, ['set width 0']),
  O('show height', /^Number of lines gdb thinks are in a page is 40\.$/, ['set height 40']),
  O('show listsize', /^Number of source lines gdb will list by default is 10\.$/),
  O('show listsize', /^Number of source lines gdb will list by default is 5\.$/, ['set listsize 5']),
  // print settings change what print shows (V at line 64, thread 0: origin = {1.5, -2} from launch.json's bytes)
  V('print origin', /^\$1 = \{x = 1\.5, y = -2\}$/),
  V('print origin', /^\$1 = \{\n {2}x = 1\.5,\n {2}y = -2\n\}$/, ['break 64', 'run', 'set print pretty on']),
  V('print label', /^\$1 = "abcd"\.\.\.$/, ['break 64', 'run', 'set print elements 4']),
  V('print &sTile[1]', /^\$1 = \([^)]*int \*\) <sTile\+4>$/, ['break 64', 'run', 'set print address off']),
  V('print origin', /^\$1 = \{x = 1\.5, \n {2}y = -2\}$/, ['break 64', 'run', 'set width 16']),
  O('show print address', /^Printing of addresses is off\.$/, ['set print address off']),
  // cuda-gdb's $_cuda_* (O: one block of 64 threads, stopped in thread 0 at line 16)
  O('print $_cuda_block_dim_x', /^\$1 = 64$/),
  O('print $_cuda_focus_thread_x + $_cuda_focus_lane', /^\$1 = 0$/),
  O('print $_cuda_thread_lineno', /^\$1 = 16$/),
  O('show convenience', /^\$_cuda_grid_dim_x = 1$/m),
  // demangled names (S: saxpy's axpy(float, float, float) declared at line 2, the kernel at line 9)
  S('info functions', /^All defined functions:\n\nFile kernel\.cu:\n2:\tfloat axpy\(float, float, float\);\n9:\tvoid saxpy\(int, float, const float \*, float \*\);$/),
  S('info functions ^float', /^All functions matching regular expression "\^float":\n\nFile kernel\.cu:\n2:\tfloat axpy\(float, float, float\);$/),
  S('break saxpy(int, float, float const*, float*)', /^Breakpoint 2 at saxpy .*file kernel\.cu, line 11\.$/),
  S('break axpy(float, float, float)', /^Breakpoint 2 at axpy .*file kernel\.cu, line 4\.$/),
  // symbols as c++filt spells _Z4axpyfff and _Z5saxpyifPKfPf; frames and listings by the print name
  S('info line 4', /^Line 4 of ".*kernel\.cu" starts at axpy\(float, float, float\) instruction \d+\.$/),
  S('disassemble', /^Dump of PTX for function saxpy\(int, float, float const\*, float\*\):$/m),
  S('info cuda threads', /^\* block \(0,0,0\) warp 0: axpy kernel\.cu:4 /m, ['break axpy', 'run']),
  S('info cuda launches', /^\*\s+0\s+saxpy\s/m),
  // ---- breakpoints (gdb manual: Breakpoints, Conditions) ----
  O('break 18', /^Breakpoint 2 at .*file kernel\.cu, line 18\.$/),
  O('b kernel.cu:14', /^Breakpoint 2 at .*file kernel\.cu, line 14\.$/),
  O('break twice', /^Breakpoint 2 at .*file kernel\.cu, line 6\.$/),
  O('tbreak 18', /^Temporary breakpoint 2 at .*line 18\.$/),
  O('continue', /^Temporary breakpoint 1, block \(0,0,0\) thread \(\d+,0,0\) at flow \(kernel\.cu:18\)/, ['tbreak 18']),
  O('break 16 if t == 5', /^Breakpoint 2 at .*line 16\.$/),
  O('run', /Breakpoint 1, block \(0,0,0\) thread \(5,0,0\)/, ['break 16 if t == 5']),
  O('run', /Breakpoint 1, block \(0,0,0\) thread \(3,0,0\)/, ['break 14', 'condition 1 t == 3']),
  O('condition 1', /^Breakpoint 1 now unconditional\.$/, ['break 16 if t == 5']),
  refused('condition 1 t ==', /^A syntax error in expression, near `'\.$/, ['break 16']),
  refused('break 16 if t ==', /^A syntax error in expression, near `'\.$/, []),
  O('run', /^Error in testing condition for breakpoint 1:\nNo symbol "nosuch" in current context\.\nBreakpoint 1, block \(0,0,0\) thread \(0,0,0\)/, ['break 16 if nosuch == 1']),
  O('ignore 1 1', /^Will ignore next 1 crossing of breakpoint 1\.$/),
  O('info breakpoints', /^1\s+breakpoint\s+n\s+16/m, ['break 16', 'disable 1']),
  O('info breakpoints', /^1\s+breakpoint\s+y\s+16/m, ['break 16', 'disable 1', 'enable 1']),
  O('info breakpoints', /^1\s+breakpoint\s+y\s+16 .*hit 1 time/m),
  // gdb lists a breakpoint's commands under it, indented
  O('info breakpoints', /^1\s+breakpoint\s+y\s+16 .*\n {8}silent\n {8}print t$/m, ['break 16', 'commands 1', 'silent', 'print t', 'end']),
  O('delete 1', /^Deleted breakpoint 1\.$/),
  O('clear 16', /^Deleted breakpoint 1$/),
  refused('clear 18', /^No breakpoint at 18\.$/, ['break 16']),
  O('continue', /^Breakpoint 1, block \(0,0,0\) thread \(32,0,0\)/),
  O('c', /^Breakpoint 1, block \(0,0,0\) thread \(32,0,0\)/),
  O('continue 2', /The kernel finished/),
  O('reverse-continue', /^No more reverse-execution history/),
  O('rc', /^Breakpoint 1, block \(0,0,0\) thread \(0,0,0\)/, ['break 16', 'run', 'continue']),
  // ---- commands, define, document, source (gdb manual: Break Commands, Define, Command Files) ----
  O('run', /^\$1 = 0\n\$2 = 32\n.*The kernel finished/s, ['break 16', 'commands 1', 'silent', 'print t', 'continue', 'end']),
  O('pv', /^\$1 = 20$/, ['break 16', 'run', 'define pv', 'print b * 10', 'end']),
  O('help pv', /^Prints b times ten\.$/, ['define pv', 'print b * 10', 'end', 'document pv', 'Prints b times ten.', 'end']),
  O('twice-of 21', /^\$1 = 42$/, ['define twice-of', 'print $arg0 * 2', 'end']),
  // ---- watchpoints (gdb manual: Setting Watchpoints) ----
  O('watch s[1]', /^Hardware watchpoint 2: s\[1\]/),
  O('rwatch s[0]', /^Hardware read watchpoint 2: s\[0\]/),
  O('awatch s[0]', /^Hardware access \(read\/write\) watchpoint 2: s\[0\]/),
  O('watch -l s[0]', /^Hardware watchpoint 2: -location s\[0\]/),
  O('continue', /^Hardware watchpoint 2: s\[0\]\n\nOld value = 0\nNew value = 2\n/, ['break 16', 'run', 'watch s[0]']),
  // ---- stepping (gdb manual: Continuing and Stepping; reverse: Reverse Execution) ----
  O('next', /17\t {4}__syncthreads\(\);/),
  O('n', /17\t {4}__syncthreads\(\);/),
  O('next 2', /18\t {4}out\[t\] = s\[\(t \+ 1\) % 64\];/),
  S('step', /4\t {4}float ax = a \* x;/),
  S('s', /4\t {4}float ax = a \* x;/),
  O('reverse-next', /15\t {4}int b = twice\(a\);/),
  O('rn', /15\t {4}int b = twice\(a\);/),
  O('reverse-step', /7\t {4}return buf\[v & 3\];/),
  O('stepi', AT16),
  O('si', AT16),
  O('nexti', AT16),
  O('ni', AT16),
  O('reverse-stepi', /15\t {4}int b = twice\(a\);/),
  O('until', /17\t {4}__syncthreads\(\);/),
  O('advance 18', /18\t {4}out\[t\]/),
  O('until 18', /18\t {4}out\[t\]/),
  O('finish', /^"finish" not meaningful in the outermost frame\.$/),
  O('finish', /^Run till exit from #0  twice \(v=1\) at kernel\.cu:7\n[^]*15\t {4}int b = twice\(a\);\nValue returned is \$1 = 2$/, ['break 7', 'run']),
  O('reverse-finish', /^Run back to call of #0  twice \(v=1\) at kernel\.cu:7\n/, ['break 7', 'run']),
  // advance stops when the frame returns first (gdb manual: "also stop upon exit from the current stack frame"), silently
  O('advance 18', /^(?![^]*Run till exit)[^]*flow at kernel\.cu:15\n15\t {4}int b = twice\(a\);$/, ['break 7', 'run']),
  O('next', /^Breakpoint 2, block \(0,0,0\) thread \(0,0,0\) at twice \(kernel\.cu:7\)/, ['break 15', 'run', 'break 7']),
  // ---- the stack (gdb manual: Examining the Stack) ----
  O('bt', /^\*?#0\s+flow \(in=0x[0-9a-f]+, out=0x[0-9a-f]+\) at kernel\.cu:16$/),
  O('where', /#0\s+flow \(in=0x[0-9a-f]+, out=0x[0-9a-f]+\) at kernel\.cu:16/),
  O('backtrace', /#0\s+twice \(v=1\) at kernel\.cu:7\n.*#1\s+flow/, ['break 7', 'run']),
  O('up', /\*#1\s+flow/, ['break 7', 'run']),
  refused('down', /^Bottom \(innermost\) frame selected; you cannot go down\.$/, ['break 7', 'run']),
  refused('up', /^Initial frame selected; you cannot go up\.$/),
  O('frame 1', /\*#1\s+flow/, ['break 7', 'run']),
  O('frame function flow', /\*#1\s+flow/, ['break 7', 'run']),
  O('info frame', /^Stack level 0, frame at flow:/),
  O('info frame', /^Stack level 1, frame at flow:\n.*\n.*\n caller of frame at twice/, ['break 7', 'run', 'up']),
  O('info locals', /^t = 0$/m),
  O('info args', /^v = 1$/m, ['break 7', 'run']),
  // ---- source and code (gdb manual: Examining Source Files, Machine Code) ----
  O('list', AT16),
  O('list 3,5', /^\s+3\t__device__ __noinline__ int twice\(int v\)\n\s+4\t\{\n\s+5\t {4}int buf\[4\];$/),
  O('list', /^\s+6\t {4}buf\[v & 3\] = v \* 2;/, ['list 1,5']),
  O('list -', /^\s+1\t.*\n(?:.*\n)*\s+5\t {4}int buf\[4\];$/, ['list 6,10']),
  // no listing yet: the lines before the ten `list` would centre on line 16 (11-20)
  O('list -', /^\s+1\t.*\n(?:.*\n)*\s+10\t__global__ void flow\(const int\* in, int\* out\)$/),
  refused('list -', /^Already at the start of kernel\.cu\.$/, ['break 16', 'run', 'list -']),
  O('list twice', /int twice\(int v\)/),
  O('info source', /^Current source file is .*kernel\.cu$/m),
  O('info line', /^Line 16 of ".*kernel\.cu"/),
  O('info line 18', /^Line 18 of ".*kernel\.cu" starts at/),
  O('disassemble', /^=>/m),
  O('x/i $pc', /=>/),
  O('info registers r1', /^%r1\s+0x[0-9a-f]+\s+-?\d+$/),
  O('info all-registers', /^%r0\s+0x[0-9a-f]+\s+-?\d+$/m),
  O('show cuda break_on_launch', /^Breaking on CUDA kernel launches is none \(this session records one launch\)\.$/),
  refused('info registers r999', /^Invalid register `r999'$/),
  O('whatis b', /^type = int$/),
  O('ptype t', /^type = int$/),
  O('whatis in', /^type = const int \*$/, ['break 14', 'run']),
  O('display t', /^1: t = 0$/),
  O('info display', /^Auto-display expressions now in effect:\nNum Enb Expression\n1:\s+y\s+t$/, ['display t']),
  V('display/x tid', /^1: \/x tid = 0x0$/),
  V('display origin', /^1: origin = \{\n {2}x = 1\.5,\n {2}y = -2\n\}$/, ['break 64', 'run', 'set print pretty on']),
  V('info variables', /^cScale = \{0\.5, 1\.\.\.\}$/m, ['break 64', 'run', 'set print elements 2']),
  // ---- threads and CUDA focus (cuda-gdb manual: Kernel Focus, Inspecting Program State) ----
  O('info cuda threads', /^\* block \(0,0,0\) warp 0:/m),
  O('info cuda kernels', /flow/),
  O('info cuda blocks', /\(0,0,0\)/),
  O('cuda block thread', /^block \(0,0,0\), thread \(0,0,0\)$/),
  O('cuda warp lane', /^warp 0, lane 0$/),
  O('cuda kernel', /^kernel 0$/),
  O('cuda thread (5,0,0)', /^\[Switching focus to CUDA kernel 0, grid 1, block \(0,0,0\), thread \(5,0,0\)\]/),
  O('cuda warp 1 lane 3', /thread \(35,0,0\)\]/),
  refused('cuda lane 64', /^Invalid coordinates requested\. CUDA focus unchanged\.$/),
  refused('cuda lane -1', /^Invalid coordinates requested\. CUDA focus unchanged\.$/),
  O('cuda device 0', /^\[Switching focus to CUDA kernel 0, grid 1, block \(0,0,0\), thread \(0,0,0\)\]/),
  O('cuda kernel 0', /^\[Switching focus to CUDA kernel 0, grid 1, block \(0,0,0\), thread \(0,0,0\)\]/),
  refused('cuda kernel 1', ONE_LINE(/There is no kernel 1: .*CUDA focus unchanged\./)),
  O('info cuda devices', ONE_LINE(/One device, 0: .*/)),
  O('info cuda sms', ONE_LINE(/ptxdbg simulates one device without modelling its SMs.*/)),
  O('thread', /^block \(0,0,0\), thread \(0,0,0\), warp 0, lane 0$/),
  O('thread', /\(exited\)$/, ['goto end']),
  O('thread apply 1 2 p t', /^Thread 1 \(block \(0,0,0\) thread \(1,0,0\)\):\n\$1 = 1\n\nThread 2 \(block \(0,0,0\) thread \(2,0,0\)\):\n\$2 = 2$/),
  // at the first hit warp 1 (threads 32-63) still sits at the kernel's entry, before `int t` (line 13)
  O('thread apply all p t', /^Thread 0 \(block \(0,0,0\) thread \(0,0,0\)\):\n\$1 = 0\n[^]*Thread 31 \(block \(0,0,0\) thread \(31,0,0\)\):\n\$32 = 31\n\nThread 32 \(block \(0,0,0\) thread \(32,0,0\)\):\nNo symbol "t" in current context\./),
  // ---- rr (rr's gdb extensions; checkpoints: gdb manual) ----
  O('when', /^Current event: \d+$/),
  O('checkpoint', /^Checkpoint 1 at step \d+\.$/),
  O('restart 1', AT16, ['break 16', 'run', 'checkpoint', 'next', 'next']),
  O('info checkpoints', /^1 {2}step \d+$/, ['break 16', 'run', 'checkpoint']),
  O('run', /^Breakpoint 1, block \(0,0,0\) thread \(0,0,0\)/, ['break 16', 'run', 'next', 'next']),
  // gdb's start: a temporary breakpoint on the kernel's first statement (kernel.cu:13; 12 declares shared memory), then run
  O('start', /^Temporary breakpoint (\d+) at flow pc \d+: file kernel\.cu, line 13\.\nTemporary breakpoint \1, [^]*\n13\t {4}int t = threadIdx\.x;$/),
  O('goto end', /The kernel finished after \d+ warp-steps/),
  O('source CMDS', /^\$1 = 0\n\$2 = 2$/),
  // ---- at a trap (the stop is inside __trap; the question is asked in the kernel's frame) ----
  c('T', 'origin j', /^%r2 was last written by PTX \d+ of gatherChecked: [^]*\n6\t {8}int j = idx\[i\];$/),
  c('T', 'history j', /^History of j .*\n {2}step +\d+ {2}kernel\.cu:6 {2}j = /),
  c('T', 'bt', /^ #0 {2}__trap \(\) at pc 0\n\*#1 {2}gatherChecked \(.*\) at kernel\.cu:8$/),
  // ---- help ----
  O('help next', /^next \[N\]/),
  O('help', /^Commands/),
  // ---- what a recording cannot do: one line, the reason ----
  refused('attach 1234', ONE_LINE(/ptxdbg debugs a recording .*nothing to attach to.*/)),
  refused('detach', ONE_LINE(/.*nothing to detach from\./)),
  refused('core-file core.1234', ONE_LINE(/ptxdbg has no core files.*/)),
  refused('gcore', ONE_LINE(/ptxdbg writes no core files.*/)),
  refused('target remote :2345', ONE_LINE(/ptxdbg has no remote or native targets.*/)),
  refused('kill', ONE_LINE(/The recording cannot be killed.*/)),
  refused('cuda device 1', ONE_LINE(/ptxdbg simulates one GPU.*/)),
  refused('info sharedlibrary', ONE_LINE(/info sharedlibrary: ptxdbg debugs a recorded kernel launch.*/)),
  refused('jump 18', ONE_LINE(/jump would change the recorded execution.*/)),
];

function open(sample: Sample): Session {
  const dir = join(ROOT, 'samples', DIRS[sample]);
  return openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
}

test('the list has at least 100 commands', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(100);
});

describe.each(CASES.map((k, i) => [`${i + 1}: ${k.cmd}${k.setup ? `  (after ${k.setup.join('; ') || 'nothing'})` : ''}`, k] as const))('%s', (_name, k) => {
  test('answers as gdb / cuda-gdb / rr does', () => {
    const s = open(k.sample);
    let setupOut = '';
    expect(runBatch(s, k.setup ?? STOP[k.sample], (t) => { setupOut += t; })).toBe(0);
    let out = '';
    const code = runBatch(s, [k.cmd.replace('CMDS', join(tmp, 'cmds.gdb'))], (t) => { out += t; });
    expect({ code, out: out.replace(/\n$/, '') }).toEqual({ code: k.fails ? 1 : 0, out: expect.stringMatching(k.want) });
    void setupOut;
  });
});
