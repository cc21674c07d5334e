// The rowjit version (ir layer: the lowest layer that the CLI and the engine both report from).
#pragma once

namespace rowjit {

const char* Version();

}  // namespace rowjit
