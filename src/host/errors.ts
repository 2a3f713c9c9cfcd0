/**
 * CUDA runtime error codes the emulated device returns to the program (cudaError_t values of
 * the CUDA 13 runtime), and the error that carries one with its explanation.
 */
export const CUDA = {
  success: 0,
  invalidValue: 1,
  memoryAllocation: 2,
  invalidConfiguration: 9,
  invalidSymbol: 13,
  invalidDevicePointer: 17,
  invalidDeviceFunction: 98,
  invalidKernelImage: 200,
  noKernelImage: 209,
  invalidPtx: 218,
  invalidResourceHandle: 400,
  notFound: 500,
  illegalAddress: 700,
  launchTimeout: 702,
  assert: 710,
  misalignedAddress: 716,
  launchFailure: 719,
  cooperativeLaunchTooLarge: 720,
  notSupported: 801,
} as const;

export class CudaError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
