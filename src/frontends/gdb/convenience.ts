/**
 * cuda-gdb's `$_cuda_*` convenience variables (cuda-gdb's cuda-convvars.c, the groups `focus`,
 * `hw_vars`, `lineno` and `call_depth`), from the recording's focus. cuda-gdb fills them only
 * after `set debug cuda convenience_vars GROUP`; a recording knows them all at every position, so
 * here they always exist. Those of hardware a recording does not model (SM numbers, warp slots
 * per SM, register counts) are left out rather than made up; `$_cuda_focus_warp` is the warp's
 * index in its block (cuda-gdb's is the warp slot on the SM, which the recording has none of).
 */
import type { Engine } from '../../engine/index.js';

/** The names, in `show convenience`'s order. */
export const CUDA_VARIABLES: readonly string[] = [
  '_cuda_grid_dim_x', '_cuda_grid_dim_y', '_cuda_grid_dim_z',
  '_cuda_block_dim_x', '_cuda_block_dim_y', '_cuda_block_dim_z',
  '_cuda_focus_device', '_cuda_focus_kernel_id',
  '_cuda_focus_block_x', '_cuda_focus_block_y', '_cuda_focus_block_z',
  '_cuda_focus_thread_x', '_cuda_focus_thread_y', '_cuda_focus_thread_z',
  '_cuda_focus_warp', '_cuda_focus_lane', '_cuda_thread_active',
  '_cuda_thread_lineno', '_cuda_call_depth', '_cuda_num_devices', '_cuda_num_lanes',
  '_cuda_latest_launched_kernel_id',
];

/** The value of `$NAME` (NAME without `$`) when it is one of cuda-gdb's, else undefined. */
export function cudaVariable(e: Engine, name: string): string | undefined {
  if (!name.startsWith('_cuda_')) return undefined;
  const w = e.where();
  const l = e.launchInfo();
  const xyz = (v: readonly number[], axis: string): string => String(v['xyz'.indexOf(axis)]);
  const dim = /^_cuda_(grid|block)_dim_([xyz])$/.exec(name);
  if (dim) return xyz(dim[1] === 'grid' ? l.grid : l.block, dim[2]!);
  const at = /^_cuda_focus_(block|thread)_([xyz])$/.exec(name);
  if (at) return xyz(at[1] === 'block' ? w.block : w.thread, at[2]!);
  // one device; kernels are numbered as `info cuda kernels` numbers them (the launch's index)
  const kernel = String(e.position().launch);
  switch (name) {
    case '_cuda_focus_device': return '0';
    case '_cuda_focus_kernel_id': case '_cuda_latest_launched_kernel_id': return kernel;
    case '_cuda_focus_warp': return String(w.warp);
    case '_cuda_focus_lane': return String(w.lane);
    case '_cuda_thread_active': return w.state === 'active' ? '1' : '0';
    case '_cuda_thread_lineno': return String(w.file ? w.line : 0);
    case '_cuda_call_depth': return String(Math.max(0, w.frames.length - 1));
    case '_cuda_num_devices': return '1';
    case '_cuda_num_lanes': return '32';
    default: return undefined;
  }
}
