/**
 * The demangler against the names compute-sanitizer's documentation and captured reports print
 * (their mangled forms written by hand from the Itanium C++ ABI), and c++filt's reading of
 * templates, substitutions and qualifiers, spelled as compute-sanitizer spells pointers (`int *`).
 */
import { demangle, displayName } from '../../src/host/demangle.js';

test('the documentation\'s kernels and host functions', () => {
  expect(demangle('_Z9sumKernelPiS_')).toBe('sumKernel(int *, int *)');
  expect(demangle('_Z12RemoteAccessPii')).toBe('RemoteAccess(int *, int)');
  expect(demangle('_Z16ThreadDivergencePii')).toBe('ThreadDivergence(int *, int)');
  expect(demangle('_Z4multPiS_i')).toBe('mult(int *, int *, int)');
  expect(demangle('_Z9vectorAddPi')).toBe('vectorAdd(int *)');
  expect(demangle('_Z10__syncwarpj')).toBe('__syncwarp(unsigned int)');
  expect(demangle('_Z13run_unalignedv')).toBe('run_unaligned()');
  expect(demangle('_ZN12_GLOBAL__N_114saxpyUnguardedEfPKfPf')).toBe('(anonymous namespace)::saxpyUnguarded(float, const float *, float *)');
  expect(demangle('_ZN36ComputeSanitizer_SaxpyUnguarded_Test8TestBodyEv')).toBe('ComputeSanitizer_SaxpyUnguarded_Test::TestBody()');
});

test('templates, substitutions, qualifiers, function and array pointers, constructors', () => {
  expect(demangle('_Z6kernelIfEvPT_i')).toBe('void kernel<float>(float *, int)');
  expect(demangle('_Z3barRKSt6vectorIiSaIiEE')).toBe('bar(const std::vector<int, std::allocator<int> > &)');
  expect(demangle('_Z3bazPPcS0_')).toBe('baz(char **, char **)');
  expect(demangle('_Z1gPKPKc')).toBe('g(const char *const *)');
  expect(demangle('_Z3fooPFviE')).toBe('foo(void (*)(int))');
  expect(demangle('_Z1fPA4_i')).toBe('f(int (*)[4])');
  expect(demangle('_ZNK2ns3Box3getEv')).toBe('ns::Box::get() const');
  expect(demangle('_ZN2ns3BoxC1Ei')).toBe('ns::Box::Box(int)');
  expect(demangle('_ZN2ns3BoxD2Ev')).toBe('ns::Box::~Box()');
  expect(demangle('_ZN2nsplERKNS_3VecES2_')).toBe('ns::operator+(const ns::Vec &, const ns::Vec &)');
});

test('what it does not read is left as it is', () => {
  expect(demangle('main')).toBeUndefined();
  expect(displayName('main')).toBe('main');
  expect(demangle('_Z')).toBeUndefined();
  expect(demangle('_Z3fo')).toBeUndefined();
  expect(displayName('_ZQQ')).toBe('_ZQQ');
});
