# aarch64-linux-gnu.cmake - CMake toolchain file for the AArch64 cross build
# (test.sh's aarch64 stage) with Debian's g++-aarch64-linux-gnu, against the
# arm64 libraries that scripts/fetch-arm64-root.sh unpacks (OpenSSL,
# GoogleTest, Google Benchmark), and with qemu-aarch64 as the emulator that
# ctest and gtest_discover_tests run the test programs through.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DMLDSA_ACCEL_ARM64_ROOT=$(scripts/fetch-arm64-root.sh)
#
# qemu-aarch64 picks its CPU model from QEMU_CPU (default "max", which has
# the SHA-3 extension; QEMU_CPU=cortex-a72 has not).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(MLDSA_ACCEL_ARM64_ROOT "$ENV{MLDSA_ACCEL_ARM64_ROOT}" CACHE PATH
  "arm64 library root from scripts/fetch-arm64-root.sh")
if(NOT IS_DIRECTORY "${MLDSA_ACCEL_ARM64_ROOT}/usr/lib/aarch64-linux-gnu")
  message(FATAL_ERROR "MLDSA_ACCEL_ARM64_ROOT ('${MLDSA_ACCEL_ARM64_ROOT}') is not a root from scripts/fetch-arm64-root.sh")
endif()
# try_compile projects see the root too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MLDSA_ACCEL_ARM64_ROOT)

# Libraries, headers and package configs from the arm64 root and the cross
# toolchain's own folder only; programs (python3, openssl for the host-side
# scripts) from the host.
set(CMAKE_FIND_ROOT_PATH "${MLDSA_ACCEL_ARM64_ROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# OpenSSL's configuration headers live in the multiarch include folder.
set(CMAKE_C_FLAGS_INIT "-isystem ${MLDSA_ACCEL_ARM64_ROOT}/usr/include/aarch64-linux-gnu")
set(CMAKE_CXX_FLAGS_INIT "-isystem ${MLDSA_ACCEL_ARM64_ROOT}/usr/include/aarch64-linux-gnu")
# Run-time: the cross toolchain's libc and libstdc++, the root's libcrypto.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu
  -E "LD_LIBRARY_PATH=${MLDSA_ACCEL_ARM64_ROOT}/usr/lib/aarch64-linux-gnu")
