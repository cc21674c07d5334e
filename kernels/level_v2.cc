// Static kernels compiled for x86-64-v2 (SSE4.2, POPCNT) (kernels layer). The -march for this file is set in
// kernels/CMakeLists.txt; dispatch.cc only hands its table out when the CPU supports it.
#if !defined(__POPCNT__)
#error "level_v2.cc must be compiled with -march=x86-64-v2"
#endif
#define ROWJIT_LEVEL_NS v2
#define ROWJIT_LEVEL_ENUM kV2
#define ROWJIT_LEVEL_TABLE_FN V2KernelTable
#include "kernels/level_table_internal.h"
