// Static kernels compiled for x86-64 (SSE2 only) (kernels layer). The -march for this file is set in
// kernels/CMakeLists.txt; dispatch.cc only hands its table out when the CPU supports it.
#if defined(__AVX__) || defined(__SSE4_2__)
#error "level_baseline.cc must be compiled with -march=x86-64"
#endif
#define ROWJIT_LEVEL_NS baseline
#define ROWJIT_LEVEL_ENUM kBaseline
#define ROWJIT_LEVEL_TABLE_FN BaselineKernelTable
#include "kernels/level_table_internal.h"
