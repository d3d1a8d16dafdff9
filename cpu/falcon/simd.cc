// simd.cc - the choice of Falcon's kernels (simd.h): the AVX2 ones where the
// ML-DSA core's backend in use is avx2 or avx512, the NEON ones where it is
// neon, else the portable ones.
#include "cpu/falcon/simd.h"

#include "cpu/mldsa.h"

namespace falcon {

const Kernels kPortableKernels = {
    "portable", portable::chacha8, portable::dft, portable::split_fft, portable::merge_fft, portable::poly_ldl_fft,
    portable::poly_mul_fft, portable::ntt_fwd, portable::ntt_inv, portable::rcdt_count,
};

const Kernels& kernels() {
#if defined(MLDSA_FALCON_HAVE_AVX2)
  // The backend's name, not CPUID: the backend is chosen once from CPUID
  // (or by the cpu_backend setting), and a test that selects "ref" gets the
  // portable Falcon too.
  // (Called per kernel: a prefix test, as the names are ref, avx2, avx512.)
  const char* b = mldsa::backend_name();
  if (b[0] == 'a' && b[1] == 'v' && b[2] == 'x') return kAvx2Kernels;
#endif
#if defined(MLDSA_FALCON_HAVE_NEON)
  // As above: neon (either of the core's two NEON tables), not ref.
  if (mldsa::backend_name()[0] == 'n') return kNeonKernels;
#endif
  return kPortableKernels;
}

}  // namespace falcon
