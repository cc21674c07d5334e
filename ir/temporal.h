// Calendar facts shared by the temporal functions' reference (ir/functions_temporal.cc), the
// binder and their kernels (jit/lower_temporal.cc) (ir layer).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/types.h"

namespace rowjit::ir {

enum class TemporalField : uint8_t {
  kYear, kQuarter, kMonth, kDay, kDayOfWeek, kDayOfYear, kHour, kMinute, kSecond, kEpoch
};
// In order from the longest: a unit up to kDay truncates to a calendar day, the rest within one.
enum class TemporalUnit : uint8_t {
  kYear, kQuarter, kMonth, kWeek, kDay, kHour, kMinute, kSecond, kMillisecond, kMicrosecond
};

// Storage units in one `unit` shorter than a day (0 or 1: finer than the storage, no change).
int64_t UnitLength(TemporalUnit unit, int64_t per_day);
std::string_view TemporalUnitName(TemporalUnit unit);  // "date_trunc_month"
// Zone names the kernels read as UTC: "UTC", "Etc/UTC", "Z", "+00:00", "GMT", "Etc/GMT".
bool IsUtcZone(std::string_view zone);
// The catalog function `date_part(part, t)` (any other name: a field) or `date_trunc(part, t)`
// binds to ("year", "day_of_week" for 'dow', "date_trunc_month"), or nullopt for an unknown part.
std::optional<std::string> TemporalCallName(std::string_view function, std::string_view part);

}  // namespace rowjit::ir
