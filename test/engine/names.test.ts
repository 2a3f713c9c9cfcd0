/** The source name of a mangled kernel, as `break NAME`, `exec --break NAME` and reports use it. */
import { plainName } from '../../src/engine/breakpoints.js';

test('plain names of Itanium-mangled functions: free, templated, namespaced, unmangled', () => {
  expect(plainName('_Z6vecAddPfS_S_i')).toBe('vecAdd');                // vecAdd(float*, float*, float*, int)
  expect(plainName('_Z8blockSumIiLi128EEvPKT_PS0_i')).toBe('blockSum'); // blockSum<int, 128>(...)
  expect(plainName('_ZN2ns3fooEv')).toBe('foo');                        // ns::foo()
  // cub::CUB_300001_SM_800::detail::radix_sort::DeviceRadixSortHistogramKernel<...>(...)
  expect(plainName('_ZN3cub17CUB_300001_SM_8006detail10radix_sort30DeviceRadixSortHistogramKernelINS1_5radixEEEvPT2_')).toBe('DeviceRadixSortHistogramKernel');
  expect(plainName('kernel')).toBe('kernel');                           // extern "C"
});
