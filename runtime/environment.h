// The process environment (runtime layer): every environment variable the library reads, read
// here and nowhere else. What an engine decides is an EngineOptions field; what is read here is
// decided by the process or the system:
//   TZDIR                the tz database folder (default /usr/share/zoneinfo), as libc reads it
//   ROWJIT_KERNEL_LEVEL  baseline | v2 | v3 | v4: the x86-64 level the static kernels, and the
//                        native kernels of engines made afterwards, are held to (a test and
//                        benchmark hook: one host runs the AVX2 path of an AVX-512 one);
//                        kernels::SetKernelLevel does the same from code
//   ROWJIT_CACHE_DIR, XDG_CACHE_HOME, HOME
//                        the default folder of the persistent kernel cache (DefaultCacheDir)
#pragma once

#include <optional>
#include <string>

namespace rowjit {

// $TZDIR when set and not empty.
std::optional<std::string> ZoneDirectoryVariable();

// Holds the static kernels to the level $ROWJIT_KERNEL_LEVEL names, once per process (later calls
// do nothing): Engine::Make calls it, as do the CLI, the benchmarks and the Python module at
// start. A value that is not a level, or one this CPU lacks, is reported on stderr and ignored.
void ApplyKernelLevelVariable();

// The persistent kernel cache's default folder, one rule for the CLI, the Python module and the
// Dask helpers: $ROWJIT_CACHE_DIR when set, else $XDG_CACHE_HOME/rowjit when that is an absolute
// path, else $HOME/.cache/rowjit when HOME is; empty (no disk cache) when none is.
std::string DefaultCacheDir();

}  // namespace rowjit
