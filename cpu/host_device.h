// host_device.h - MLDSA_HD marks a function of the core that the GPU task
// code calls too: nvcc then builds it for the device as well; other
// compilers see a plain function.
#pragma once

#if defined(__CUDACC__)
#define MLDSA_HD __host__ __device__
#else
#define MLDSA_HD
#endif
