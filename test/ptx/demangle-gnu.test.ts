/**
 * gdb's and c++filt's spelling of demangled names (libiberty), for nvcc's output: every expected
 * string below is what `c++filt` (GNU binutils) printed for the mangled name, names taken from
 * the PTX of our samples, test/corpus and test/fixtures/templates.
 */
import { parse } from '../../src/ptx/demangle.js';
import { demangledName, namesFunction, printName } from '../../src/ptx/names.js';

const CXXFILT: readonly (readonly [string, string])[] = [
  ['_Z6roundsPi', 'rounds(int*)'],
  ['_Z4flowPKiPi', 'flow(int const*, int*)'],
  ['_ZN4dim3C1Ejjj', 'dim3::dim3(unsigned int, unsigned int, unsigned int)'],
  ['_Z5scaleIfLi4EEvPT_i', 'void scale<float, 4>(float*, int)'],
  ['_ZN3ops5timesIfLi4EEET_S1_', 'float ops::times<float, 4>(float)'],
  ['_ZN4cuda3std3__416__atomic_bitwiseImNS1_24__thread_scope_block_tagEEC1Em',
    'cuda::std::__4::__atomic_bitwise<unsigned long, cuda::std::__4::__thread_scope_block_tag>::__atomic_bitwise(unsigned long)'],
  ['_ZN18cooperative_groups4__v131__single_warp_thread_block_tileILj8EvEC2Ejj',
    'cooperative_groups::__v1::__single_warp_thread_block_tile<8u, void>::__single_warp_thread_block_tile(unsigned int, unsigned int)'],
  ['_ZN4cuda3__48pipelineILNS_3std3__412thread_scopeE10EE16consumer_releaseEv',
    'cuda::__4::pipeline<(cuda::std::__4::thread_scope)10>::consumer_release()'],
  ['_ZN18cooperative_groups4__v117thread_block_tileILj8ENS1_ILj32EvEEEC2ERKS2_',
    'cooperative_groups::__v1::thread_block_tile<8u, cooperative_groups::__v1::thread_block_tile<32u, void> >::thread_block_tile(cooperative_groups::__v1::thread_block_tile<32u, void> const&)'],
  ['_ZN3cub17CUB_300001_SM_8006detail25uninitialized_copy_singleIiRKiLi0EEEvPT_OT0_',
    'void cub::CUB_300001_SM_800::detail::uninitialized_copy_single<int, int const&, 0>(int*, int const&)'],
  ['_ZN18cooperative_groups4__v17details22thread_block_tile_implILj32EvLb0EEC2ILj32ENS0_12thread_blockELb0EEERKNS2_IXT_ET0_XT1_EEE',
    'cooperative_groups::__v1::details::thread_block_tile_impl<32u, void, false>::thread_block_tile_impl<32u, cooperative_groups::__v1::thread_block, false>(cooperative_groups::__v1::details::thread_block_tile_impl<32u, cooperative_groups::__v1::thread_block, false> const&)'],
  ['_ZN43_INTERNAL_3efc7282_12_wmma_gemm_cu_3ef7501e6nvcuda4wmma13fill_fragmentIfLi8ELi8EEEvRNS1_11__frag_baseIT_XT0_EXT1_EEERKNS1_13helper_traitsIS4_E18fill_argument_typeE',
    'void _INTERNAL_3efc7282_12_wmma_gemm_cu_3ef7501e::nvcuda::wmma::fill_fragment<float, 8, 8>(_INTERNAL_3efc7282_12_wmma_gemm_cu_3ef7501e::nvcuda::wmma::__frag_base<float, 8, 8>&, _INTERNAL_3efc7282_12_wmma_gemm_cu_3ef7501e::nvcuda::wmma::helper_traits<float>::fill_argument_type const&)'],
];

test.each(CXXFILT)('%s reads as c++filt writes it', (mangled, expected) => {
  expect(parse(mangled, 'gnu')?.full).toBe(expected);
  expect(demangledName(mangled)).toBe(expected);
});

test('the print name is the qualified name with template arguments, without return type and parameters', () => {
  expect(printName('_Z5scaleIfLi4EEvPT_i')).toBe('scale<float, 4>');
  expect(printName('_ZN3ops5timesIfLi4EEET_S1_')).toBe('ops::times<float, 4>');
  expect(printName('_Z6roundsPi')).toBe('rounds');
  expect(printName('_ZN4dim3C1Ejjj')).toBe('dim3::dim3');
  // not mangled, or not read: the name as it is
  expect(printName('plain_kernel')).toBe('plain_kernel');
  expect(demangledName('plain_kernel')).toBe('plain_kernel');
});

test('a function is named by its stem, print name, or either with its parameters (blanks as the user types them)', () => {
  const m = '_Z5scaleIfLi4EEvPT_i';
  for (const spec of ['scale', 'scale<float, 4>', 'scale<float,4>', 'scale(float*, int)', 'scale(float *, int)', 'scale<float, 4>(float*, int)', m]) {
    expect(namesFunction(spec, m)).toBe(true);
  }
  for (const spec of ['scale<float, 8>', 'scale(int*, int)', 'scal', 'times']) expect(namesFunction(spec, m)).toBe(false);
});
