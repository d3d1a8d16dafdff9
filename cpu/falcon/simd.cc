// simd.cc - the choice of Falcon's kernels (simd.h): the AVX2 ones where the
// ML-DSA core's backend in use is avx2 or avx512, else the portable ones.
#include "cpu/falcon/simd.h"

#include <string_view>

#include "cpu/mldsa.h"

namespace falcon {

const Kernels kPortableKernels = {
    "portable", portable::chacha8, portable::split_fft, portable::merge_fft, portable::poly_ldl_fft,
    portable::poly_mul_fft,
};

const Kernels& kernels() {
#if defined(MLDSA_FALCON_HAVE_AVX2)
  // The backend's name, not CPUID: the backend is chosen once from CPUID
  // (or by the cpu_backend setting), and a test that selects "ref" gets the
  // portable Falcon too.
  const std::string_view b = mldsa::backend_name();
  if (b == "avx2" || b == "avx512") return kAvx2Kernels;
#endif
  return kPortableKernels;
}

}  // namespace falcon
