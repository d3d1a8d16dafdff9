// device_list.h - which CUDA devices the engine signs on, from the
// environment's text: MLDSA_ACCEL_GPUS ("0,2": those ordinals, in that order;
// unset or empty: all of them) and MLDSA_ACCEL_GPU_SPLIT (k: each listed
// device k times, as k logical devices with their own streams and buffers; a
// test knob that runs the multi-device path on one GPU). Plain C++, so the
// parsing is tested on any machine (tests/kernels/sign_task_test.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mldsa::gpu {

// count: the visible devices. False with *why set on bad text.
inline bool parse_device_list(std::string_view gpus, std::string_view split, int count, std::vector<int>& out,
                              std::string* why) {
  auto fail = [&](const std::string& w) {
    if (why) *why = w;
    out.clear();
    return false;
  };
  // A decimal number below limit, the whole of s.
  auto number = [](std::string_view s, long limit, long& v) {
    if (s.empty() || s.size() > 6) return false;
    v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    return v < limit;
  };
  std::vector<int> base;
  if (gpus.empty()) {
    for (int i = 0; i < count; ++i) base.push_back(i);
  } else {
    for (size_t pos = 0;;) {
      const size_t comma = gpus.find(',', pos);
      const std::string_view item = gpus.substr(pos, comma == std::string_view::npos ? gpus.npos : comma - pos);
      long v = 0;
      if (!number(item, count, v))
        return fail("MLDSA_ACCEL_GPUS=" + std::string(gpus) + ": not a comma list of device ordinals below " +
                    std::to_string(count));
      base.push_back(static_cast<int>(v));
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  }
  long k = 1;
  if (!split.empty() && (!number(split, 17, k) || k == 0))
    return fail("MLDSA_ACCEL_GPU_SPLIT=" + std::string(split) + ": not a number from 1 to 16");
  out.clear();
  for (long i = 0; i < k; ++i) out.insert(out.end(), base.begin(), base.end());
  if (out.empty()) return fail("no CUDA device");
  return true;
}

}  // namespace mldsa::gpu
