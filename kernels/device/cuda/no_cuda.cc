// no_cuda.cc - the CUDA platform of a build without the CUDA device: none, and why.
// A module links this or the CUDA device (kernels/device/cuda/cuda_device.cc), never both
// (kernels/CMakeLists.txt, mldsa_gpu_device).
#include "kernels/device/device.h"

namespace mldsa::gpu {

std::shared_ptr<Platform> cuda_platform(std::string* why) {
  if (why) *why = "built without CUDA";
  return nullptr;
}

}  // namespace mldsa::gpu
