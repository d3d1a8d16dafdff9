// random.cc - the OS random source and zeroization.
#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "cpu/mldsa.h"

namespace mldsa {

bool os_random(uint8_t* buf, size_t len) {
  while (len > 0) {
    const ssize_t n = getrandom(buf, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    buf += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

void secure_zero(void* p, size_t len) {
  std::memset(p, 0, len);
  // The barrier makes the stores observable, so they are not removed.
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

}  // namespace mldsa
