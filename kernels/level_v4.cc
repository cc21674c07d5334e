// Static kernels compiled for x86-64-v4 (AVX-512) (kernels layer). The -march for this file is set in
// kernels/CMakeLists.txt; dispatch.cc only hands its table out when the CPU supports it.
#if !defined(__AVX512BW__)
#error "level_v4.cc must be compiled with -march=x86-64-v4"
#endif
#define ROWJIT_LEVEL_NS v4
#define ROWJIT_LEVEL_ENUM kV4
#define ROWJIT_LEVEL_TABLE_FN V4KernelTable
#include "kernels/level_table_internal.h"
