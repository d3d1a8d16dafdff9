// sim_settings.cc - the simulated device's settings from text: the fault list
// (MLDSA_ACCEL_SIM_FAULTS) and the speed model (MLDSA_ACCEL_SIM_SPEED), and
// the operation names both use (see sim_device.h).
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/device/sim/sim_device.h"

namespace mldsa::gpu {
namespace {

constexpr const char* kOpNames[kSimOps] = {
    "alloc_device", "alloc_pinned",     "create_stream",     "create_event",        "copy_to_device",
    "copy_to_host", "zero",             "record",            "wait",                "launch_keygen",
    "launch_verify", "launch_verify_expand", "launch_sign_expand", "launch_sign_prepare", "launch_sign_loop",
    "synchronize",
};

bool parse_u64(std::string_view s, uint64_t& v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t pos = 0;;) {
    const size_t e = s.find(sep, pos);
    out.push_back(s.substr(pos, e == s.npos ? s.npos : e - pos));
    if (e == s.npos) return out;
    pos = e + 1;
  }
}

}  // namespace

const char* sim_op_name(SimOp op) { return kOpNames[static_cast<size_t>(op)]; }

bool parse_sim_speed(std::string_view text, SimSpeed& out, std::string* why) {
  SimSpeed s;
  if (!text.empty()) {
    for (std::string_view item : split(text, ',')) {
      const size_t eq = item.find('=');
      uint64_t v = 0;
      const std::string_view key = item.substr(0, eq);
      if (eq == item.npos || !parse_u64(item.substr(eq + 1), v)) {
        if (why) *why = "MLDSA_ACCEL_SIM_SPEED: '" + std::string(item) + "' is not KEY=NUMBER";
        return false;
      }
      const auto ns = std::chrono::nanoseconds(static_cast<int64_t>(v));
      if (key == "latency_us") s.launch_latency = std::chrono::microseconds(static_cast<int64_t>(v));
      else if (key == "keygen_ns") s.per_task[0] = ns;
      else if (key == "verify_ns") s.per_task[1] = ns;
      else if (key == "vexpand_ns") s.per_task[5] = ns;
      else if (key == "expand_ns") s.per_task[2] = ns;
      else if (key == "prepare_ns") s.per_task[3] = ns;
      else if (key == "sign_ns") s.per_task[4] = ns;
      else if (key == "copy_gbps") s.copy_bytes_per_second = static_cast<double>(v) * 1e9;
      else {
        if (why)
          *why = "MLDSA_ACCEL_SIM_SPEED: unknown key '" + std::string(key) +
                 "' (latency_us, keygen_ns, verify_ns, vexpand_ns, expand_ns, prepare_ns, sign_ns, copy_gbps)";
        return false;
      }
    }
  }
  out = s;
  return true;
}

bool parse_sim_faults(std::string_view text, std::vector<SimFault>& out, std::string* why) {
  std::vector<SimFault> faults;
  auto bad = [&](std::string_view item, const std::string& reason) {
    if (why) *why = "MLDSA_ACCEL_SIM_FAULTS: '" + std::string(item) + "': " + reason;
    return false;
  };
  if (!text.empty()) {
    for (std::string_view item : split(text, ',')) {
      SimFault f;
      std::string_view rest = item;
      if (rest.size() > 1 && rest[0] == 'd') {
        const size_t slash = rest.find('/');
        uint64_t d = 0;
        if (slash == rest.npos || !parse_u64(rest.substr(1, slash - 1), d) || d > 1024)
          return bad(item, "a device prefix is dN/");
        f.device = static_cast<int>(d);
        rest = rest.substr(slash + 1);
      }
      const std::vector<std::string_view> parts = split(rest, ':');
      if (parts.size() < 2 || parts.size() > 3) return bad(item, "expected OP:N[:KIND]");
      size_t op = 0;
      while (op < kSimOps && parts[0] != kOpNames[op]) ++op;
      if (op == kSimOps) return bad(item, "unknown operation");
      f.op = static_cast<SimOp>(op);
      std::string_view n = parts[1];
      if (n.substr(0, 5) == "every") {
        f.every = true;
        n = n.substr(5);
      }
      if (!parse_u64(n, f.nth) || f.nth == 0) return bad(item, "N is a whole number from 1");
      if (parts.size() == 3) {
        const std::string_view k = parts[2];
        if (k == "error") f.kind = SimFaultKind::error;
        else if (k == "async_error") f.kind = SimFaultKind::async_error;
        else if (k == "out_of_memory") f.kind = SimFaultKind::out_of_memory;
        else if (k == "lost") f.kind = SimFaultKind::lost;
        else if (k == "hang") f.kind = SimFaultKind::hang;
        else if (k == "corrupt") f.kind = SimFaultKind::corrupt;
        else return bad(item, "KIND is error, async_error, out_of_memory, lost, hang or corrupt");
      }
      faults.push_back(f);
    }
  }
  out = std::move(faults);
  return true;
}

}  // namespace mldsa::gpu
