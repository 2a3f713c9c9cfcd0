// Parse benchmark input (test/bench/bench.ts): a small Thrust program whose `nvcc -G -ptx` is a
// large, real -G module (Thrust/CUB instantiate many kernels per algorithm and element type).
// It is compiled at bench time, never run by the benchmark.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/functional.h>
#include <cstdio>

template <typename T>
struct affine {
  __host__ __device__ T operator()(T x) const { return x * T(3) + T(1); }
};

template <typename T>
T exercise(size_t n) {
  thrust::device_vector<T> v(n);
  thrust::sequence(v.begin(), v.end());
  thrust::transform(v.begin(), v.end(), v.begin(), affine<T>());
  thrust::sort(v.begin(), v.end());
  thrust::sort(v.begin(), v.end(), thrust::greater<T>());
  thrust::inclusive_scan(v.begin(), v.end(), v.begin());
  thrust::exclusive_scan(v.begin(), v.end(), v.begin());
  return thrust::reduce(v.begin(), v.end(), T(0), thrust::plus<T>());
}

int main() {
  std::printf("%d %f %f\n", exercise<int>(1000), exercise<float>(1000), exercise<double>(1000));
  return 0;
}
