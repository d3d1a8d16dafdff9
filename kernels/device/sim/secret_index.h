// secret_index.h - the simulated device's secret scan: the watched secrets
// (SimPlatform::watch_secret), indexed by their first two bytes, so a memory
// block is scanned once for all of them. Test machinery, as sim_device.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "kernels/device/sim/sim_device.h"

namespace mldsa::gpu {


class SimPlatform::SecretIndex {
 public:
  void add(const uint8_t* p, size_t n) {
    if (n < 2) return;
    const uint16_t k = key(p);
    prefix_[k].push_back(needles_.size());
    bits_[k >> 6] |= uint64_t{1} << (k & 63);
    needles_.emplace_back(p, p + n);
  }
  bool empty() const { return needles_.empty(); }
  // hit(offset, needle) for every occurrence in [base, base + size).
  template <typename Hit>
  void scan(const uint8_t* base, size_t size, Hit hit) const {
    if (needles_.empty()) return;
    for (size_t i = 0; i + 1 < size; ++i) {
      const uint16_t k = key(base + i);
      if (((bits_[k >> 6] >> (k & 63)) & 1) == 0) continue;
      for (size_t n : prefix_.at(k)) {
        const std::vector<uint8_t>& needle = needles_[n];
        if (needle.size() <= size - i && std::memcmp(base + i, needle.data(), needle.size()) == 0) hit(i, n);
      }
    }
  }

 private:
  static uint16_t key(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
  std::vector<std::vector<uint8_t>> needles_;
  std::unordered_map<uint16_t, std::vector<size_t>> prefix_;
  uint64_t bits_[1024] = {};
};

}  // namespace mldsa::gpu
