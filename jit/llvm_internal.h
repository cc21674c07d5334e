// The one place rowjit includes LLVM headers (jit layer, internal). Every jit/*.cc that needs
// LLVM includes this file and nothing from llvm/ directly.
#pragma once

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
