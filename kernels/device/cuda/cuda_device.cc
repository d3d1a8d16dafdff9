// cuda_device.cc - the device seam (kernels/device/device.h) on the CUDA runtime:
// every CUDA call of the engine is here or in the launchers (launch.h).
//
// Each call first makes its device current on the calling thread. The engine
// calls a device only from its own host thread for that device (one per
// logical device), so the application's threads never have their CUDA device
// changed, and no call can land on another device's stream.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/global/launch.h"
#include "kernels/device/device.h"

namespace mldsa::gpu {
namespace {

// The device this thread last made current through make_current(); -1: none yet.
thread_local int t_current = -1;

cudaError_t make_current(int ordinal) {
  if (t_current == ordinal) return cudaSuccess;
  const cudaError_t e = cudaSetDevice(ordinal);
  if (e == cudaSuccess) t_current = ordinal;
  return e;
}

// Errors after which the context is unusable (CUDA keeps reporting them):
// the device is lost to us.
bool sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoDevice:
    case cudaErrorDeviceUninitialized:
    case cudaErrorContextIsDestroyed:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

cudaStream_t raw(Stream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t raw(Event e) { return reinterpret_cast<cudaEvent_t>(e); }

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal) : ordinal_(ordinal) {}

  // Properties, the occupancy of the signing loop, and local memory for our
  // kernels sized now (not at the first launch of each).
  DeviceStatus open() {
    if (cudaError_t e = make_current(ordinal_); e != cudaSuccess) return status("cudaSetDevice", e);
    cudaDeviceProp prop{};
    if (cudaError_t e = cudaGetDeviceProperties(&prop, ordinal_); e != cudaSuccess)
      return status("cudaGetDeviceProperties", e);
    props_.name = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
                  std::to_string(prop.multiProcessorCount) + " SMs)";
    props_.memory_bytes = prop.totalGlobalMem;
    props_.multiprocessors = static_cast<uint32_t>(prop.multiProcessorCount);
    int per_sm = 0;
    if (cudaError_t e = cuda_sign_loop_threads_per_sm(&per_sm); e != cudaSuccess)
      return status("cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
    props_.sign_units = static_cast<uint32_t>(std::max(per_sm, 1)) * props_.multiprocessors;
    int coop_per_sm = 0;
    if (cudaError_t e = cuda_coop_sign_loop_blocks_per_sm(&coop_per_sm); e != cudaSuccess)
      return status("cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
    props_.coop_sign_units = static_cast<uint32_t>(std::max(coop_per_sm, 1)) * props_.multiprocessors;
    size_t local = 0, limit = 0;
    if (cudaError_t e = cuda_kernels_local_bytes(&local); e != cudaSuccess) return status("cudaFuncGetAttributes", e);
    if (cudaError_t e = cudaDeviceGetLimit(&limit, cudaLimitStackSize); e != cudaSuccess)
      return status("cudaDeviceGetLimit", e);
    if (local > limit)
      if (cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, local); e != cudaSuccess)
        return status("cudaDeviceSetLimit", e);
    return {};
  }

  const DeviceProperties& properties() const override { return props_; }

  DeviceStatus alloc_device(size_t bytes, void** out) override {
    return call("cudaMalloc", [&] { return cudaMalloc(out, bytes); });
  }
  void free_device(void* p) override {
    call("cudaFree", [&] { return cudaFree(p); });
  }
  DeviceStatus alloc_pinned(size_t bytes, void** out) override {
    return call("cudaMallocHost", [&] { return cudaMallocHost(out, bytes); });
  }
  void free_pinned(void* p) override {
    call("cudaFreeHost", [&] { return cudaFreeHost(p); });
  }

  DeviceStatus create_stream(Stream* out) override {
    cudaStream_t s = nullptr;
    DeviceStatus st = call("cudaStreamCreateWithFlags", [&] { return cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); });
    *out = reinterpret_cast<Stream>(s);
    return st;
  }
  void destroy_stream(Stream s) override {
    call("cudaStreamDestroy", [&] { return cudaStreamDestroy(raw(s)); });
  }
  DeviceStatus create_event(Event* out) override {
    cudaEvent_t e = nullptr;
    DeviceStatus st = call("cudaEventCreateWithFlags", [&] { return cudaEventCreateWithFlags(&e, cudaEventDisableTiming); });
    *out = reinterpret_cast<Event>(e);
    return st;
  }
  void destroy_event(Event e) override {
    call("cudaEventDestroy", [&] { return cudaEventDestroy(raw(e)); });
  }

  DeviceStatus copy_to_device(Stream s, void* dev, const void* host, size_t bytes) override {
    return call("cudaMemcpyAsync", [&] { return cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, raw(s)); });
  }
  DeviceStatus copy_to_host(Stream s, void* host, const void* dev, size_t bytes) override {
    return call("cudaMemcpyAsync", [&] { return cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, raw(s)); });
  }
  DeviceStatus zero(Stream s, void* dev, size_t bytes) override {
    return call("cudaMemsetAsync", [&] { return cudaMemsetAsync(dev, 0, bytes, raw(s)); });
  }
  DeviceStatus record(Event e, Stream s) override {
    return call("cudaEventRecord", [&] { return cudaEventRecord(raw(e), raw(s)); });
  }
  DeviceStatus wait(Stream s, Event e) override {
    return call("cudaStreamWaitEvent", [&] { return cudaStreamWaitEvent(raw(s), raw(e), 0); });
  }

  DeviceStatus launch_keygen(Stream s, KernelSet k, const TaskParams& p, const KeygenChunk& c, uint32_t n) override {
    return call("launch keygen", [&] {
      return k == KernelSet::coop ? cuda_launch_coop_keygen(p, c, n, raw(s)) : cuda_launch_keygen(p, c, n, raw(s));
    });
  }
  DeviceStatus launch_verify(Stream s, KernelSet k, const TaskParams& p, const VerifyChunk& c, uint32_t n) override {
    return call("launch verify", [&] {
      return k == KernelSet::coop ? cuda_launch_coop_verify(p, c, n, raw(s)) : cuda_launch_verify(p, c, n, raw(s));
    });
  }
  DeviceStatus launch_verify_expand(Stream s, const TaskParams& p, const VerifyExpandChunk& c) override {
    return call("launch verify_expand", [&] { return cuda_launch_verify_expand(p, c, raw(s)); });
  }
  DeviceStatus launch_sign_expand(Stream s, KernelSet k, const TaskParams& p, const SignChunk& c) override {
    return call("launch sign_expand", [&] {
      return k == KernelSet::coop ? cuda_launch_coop_sign_expand(p, c, raw(s)) : cuda_launch_sign_expand(p, c, raw(s));
    });
  }
  // One prepare kernel for both sets (kernels/block/chunk.h).
  DeviceStatus launch_sign_prepare(Stream s, KernelSet, const TaskParams& p, const SignChunk& c,
                                   const SignSchedule& sched) override {
    return call("launch sign_prepare", [&] { return cuda_launch_sign_prepare(p, c, sched, raw(s)); });
  }
  DeviceStatus launch_sign_loop(Stream s, KernelSet k, const TaskParams& p, const SignChunk& c,
                                const SignSchedule& sched, uint32_t units) override {
    return call("launch sign_loop", [&] {
      return k == KernelSet::coop ? cuda_launch_coop_sign_loop(p, c, sched, units, raw(s))
                                  : cuda_launch_sign_loop(p, c, sched, units, raw(s));
    });
  }

  // cudaStreamSynchronize has no timeout: poll the stream instead, yielding
  // at first (a short chunk's latency matters), then sleeping.
  DeviceStatus synchronize(Stream s, std::chrono::milliseconds timeout) override {
    if (cudaError_t e = make_current(ordinal_); e != cudaSuccess) return status("cudaSetDevice", e);
    const auto start = std::chrono::steady_clock::now();
    for (unsigned polls = 0;; ++polls) {
      const cudaError_t e = cudaStreamQuery(raw(s));
      if (e == cudaSuccess) return {};
      if (e != cudaErrorNotReady) return status("cudaStreamQuery", e);
      const auto waited = std::chrono::steady_clock::now() - start;
      if (waited >= timeout)
        return {DeviceErrc::timeout, name() + ": a stream did not finish within " + std::to_string(timeout.count()) +
                                         " ms"};
      if (polls < 64)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(waited < std::chrono::milliseconds(5) ? 20 : 200));
    }
  }

 private:
  std::string name() const { return "CUDA device " + std::to_string(ordinal_); }

  DeviceStatus status(const char* what, cudaError_t e) const {
    cudaGetLastError();  // clear the non-sticky error so the next call starts clean
    const DeviceErrc code = e == cudaErrorMemoryAllocation ? DeviceErrc::out_of_memory
                            : sticky(e)                    ? DeviceErrc::lost
                                                           : DeviceErrc::failed;
    return {code, name() + ": " + what + ": " + cudaGetErrorString(e)};
  }

  template <typename Fn>
  DeviceStatus call(const char* what, Fn fn) {
    if (cudaError_t e = make_current(ordinal_); e != cudaSuccess) return status("cudaSetDevice", e);
    const cudaError_t e = fn();
    return e == cudaSuccess ? DeviceStatus{} : status(what, e);
  }

  const int ordinal_;
  DeviceProperties props_;
};

class CudaPlatform final : public Platform {
 public:
  explicit CudaPlatform(int count) : devices_(static_cast<size_t>(count)) {}
  std::string name() const override {
    int v = 0;
    cudaRuntimeGetVersion(&v);
    return "CUDA " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  }
  int device_count() const override { return static_cast<int>(devices_.size()); }
  Device* device(int ordinal, std::string* why) override {
    std::lock_guard<std::mutex> lock(m_);
    if (ordinal < 0 || ordinal >= device_count()) {
      if (why) *why = "no CUDA device " + std::to_string(ordinal);
      return nullptr;
    }
    std::unique_ptr<CudaDevice>& d = devices_[static_cast<size_t>(ordinal)];
    if (!d) {
      auto fresh = std::make_unique<CudaDevice>(ordinal);
      if (DeviceStatus st = fresh->open(); !st.ok()) {
        if (why) *why = st.what;
        return nullptr;
      }
      d = std::move(fresh);
    }
    return d.get();
  }

 private:
  std::mutex m_;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
};

}  // namespace

std::shared_ptr<Platform> cuda_platform(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (why) *why = e != cudaSuccess ? std::string("no CUDA device (") + cudaGetErrorString(e) + ")" : "no CUDA device";
    return nullptr;
  }
  return std::make_shared<CudaPlatform>(count);
}

}  // namespace mldsa::gpu
