# cuda.cmake - MLDSA_ACCEL_CUDA=AUTO|ON|OFF: whether kernels/ builds the CUDA
# engine (target mldsa_cuda). Included from the top-level CMakeLists.txt,
# because CUDA must be enabled in the directory above every target that links
# it (tests/gpu, bench). Sets MLDSA_ACCEL_HAVE_CUDA.
#   AUTO (default): on when a CUDA compiler is found, except in the sanitizer
#                   and constant-time builds (ASan and valgrind do not mix
#                   with the CUDA runtime) and on AArch64 (untested there).
#   ON:             a CUDA compiler is required.
#   OFF:            no CUDA; kernels/thread/ is still built and tested on the CPU.
# CMAKE_CUDA_COMPILER defaults to /usr/local/cuda/bin/nvcc when that exists,
# CMAKE_CUDA_ARCHITECTURES to 90 (H100/H200); both honour the user's -D.
set(MLDSA_ACCEL_CUDA AUTO CACHE STRING "Build the CUDA batch engine: AUTO, ON or OFF")
set_property(CACHE MLDSA_ACCEL_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${MLDSA_ACCEL_CUDA}" _mldsa_cuda)
set(MLDSA_ACCEL_HAVE_CUDA OFF)

if(NOT _mldsa_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "MLDSA_ACCEL_CUDA must be AUTO, ON or OFF (got '${MLDSA_ACCEL_CUDA}')")
endif()

if(_mldsa_cuda STREQUAL "AUTO" AND (MLDSA_ACCEL_SANITIZE OR MLDSA_ACCEL_CT_TESTING))
  message(STATUS "CUDA engine: off in the sanitizer / constant-time build (MLDSA_ACCEL_CUDA=ON forces it)")
elseif(_mldsa_cuda STREQUAL "AUTO" AND CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64")
  message(STATUS "CUDA engine: off on AArch64, where it is untested (MLDSA_ACCEL_CUDA=ON forces it)")
elseif(NOT _mldsa_cuda STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures")
    endif()
    enable_language(CUDA)
    # C++20 (cpu/mldsa.h uses std::span). CMake before 3.26 has no C++20 flag
    # for nvcc; nvcc 12+ takes -std=c++20.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(MLDSA_ACCEL_HAVE_CUDA ON)
    message(STATUS "CUDA engine: on (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(_mldsa_cuda STREQUAL "ON")
    message(FATAL_ERROR "MLDSA_ACCEL_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  else()
    message(STATUS "CUDA engine: off (no CUDA compiler found)")
  endif()
else()
  message(STATUS "CUDA engine: off (MLDSA_ACCEL_CUDA=OFF)")
endif()
