// The rowjit version string (ir layer).
#include "ir/version.h"

namespace rowjit {

const char* Version() { return "0.1.0"; }

}  // namespace rowjit
