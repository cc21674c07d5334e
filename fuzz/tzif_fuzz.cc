// Fuzz target: TZif bytes (a zone file under $TZDIR is anyone's) -> ParseZoneRules. Checks the
// rules' invariants (transitions ascending, one more offset than transitions, offsets within a
// day) and that lookups of any instant and its local time do not crash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "runtime/timezone.h"

namespace {

void Fail(const char* what) {
  std::fprintf(stderr, "tzif fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto rules = rowjit::ParseZoneRules("Fuzz/Zone", bytes);
  if (!rules.ok()) return 0;
  const rowjit::ZoneRules& z = **rules;
  if (z.offsets.size() != z.transitions.size() + 1) Fail("offsets do not follow the transitions");
  for (size_t i = 1; i < z.transitions.size(); ++i) {
    if (z.transitions[i] <= z.transitions[i - 1]) Fail("transitions out of order");
  }
  for (int32_t o : z.offsets) {
    if (o < -26 * 3600 || o > 26 * 3600) Fail("an offset past a day");
  }
  volatile uint64_t sink = 0;
  for (int64_t t : {INT64_MIN, int64_t{-1} << 40, int64_t{0}, int64_t{2'000'000'000}, int64_t{1} << 40, INT64_MAX}) {
    const int32_t off = z.OffsetAt(t);
    sink = sink + static_cast<uint64_t>(off) + static_cast<uint64_t>(z.FirstInstantAtOrAfter(static_cast<__int128>(t) + off)) +
           static_cast<uint64_t>(z.OffsetOfLocal(t));
  }
  return 0;
}
