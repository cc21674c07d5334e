// Static kernels compiled for x86-64-v3 (AVX2, BMI2, FMA) (kernels layer). The -march for this file is set in
// kernels/CMakeLists.txt; dispatch.cc only hands its table out when the CPU supports it.
#if !defined(__AVX2__)
#error "level_v3.cc must be compiled with -march=x86-64-v3"
#endif
#define ROWJIT_LEVEL_NS v3
#define ROWJIT_LEVEL_ENUM kV3
#define ROWJIT_LEVEL_TABLE_FN V3KernelTable
#include "kernels/level_table_internal.h"
