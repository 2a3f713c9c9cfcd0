/**
 * The limits of the one device ptxdbg models, an sm_80 GPU (CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability", compute capability 8.0), in one table: the
 * launch checks (launch files, host launches, device-side launches), the declaration bounds and
 * the per-SM occupancy checks read them here. In src/ptx, the lowest layer that needs them.
 */
export const DEVICE_LIMITS = {
  /** Threads of one block, and the largest block in each dimension. */
  threadsPerBlock: 1024,
  blockDim: [1024, 1024, 64],
  /** The largest grid in each dimension. */
  gridDim: [2 ** 31 - 1, 65535, 65535],
  /** Shared memory a block may use (with the opt-in to the largest dynamic size). */
  sharedPerBlock: 227 * 1024,
  /** Shared memory the system reserves per block (so one .shared variable may take at most 228 KiB). */
  sharedReserved: 1024,
  /** Local memory per thread. */
  localPerThread: 512 * 1024,
  /** One constant bank. */
  constBank: 64 * 1024,
  /** Per SM: 32-bit registers, resident threads, resident blocks. */
  registersPerSm: 65536,
  threadsPerSm: 2048,
  blocksPerSm: 32,
} as const;
