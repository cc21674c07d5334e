// Time zone rules (runtime layer): the UTC offsets a zone name stands for, from the system's tz
// database (tzdata's compiled TZif files, RFC 8536, including the POSIX TZ rule at their end
// that carries a zone past its last listed transition), or a fixed offset written as the name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/status.h"
#include "runtime/types.h"

namespace rowjit {

// A zone's offsets (seconds east of UTC) as a step function of the instant (seconds since
// 1970-01-01 UTC, no leap seconds): offsets[0] before transitions[0], offsets[i] from
// transitions[i - 1] until transitions[i]; consecutive offsets differ. Where the zone follows a
// recurring rule (daylight saving time every year), the transitions run to cycle_start + 400
// years and later instants repeat [cycle_start, cycle_start + kCycleSeconds) (the Gregorian
// calendar, and so every rule of the form "last Sunday of March", repeats every 400 years).
struct ZoneRules {
  static constexpr int64_t kCycleSeconds = int64_t{146'097} * 86'400;

  std::string name;
  std::vector<int64_t> transitions;
  std::vector<int32_t> offsets;
  bool cyclic = false;
  int64_t cycle_start = 0;
  // A hash of the above (FNV-1a): kernels built from these rules carry it in their cache key.
  uint64_t fingerprint = 0;

  // The offset in effect at `utc` (seconds; 128 bits, so that callers near the storage's limits
  // need no care).
  int32_t OffsetAt(__int128 utc) const;
  // The first instant whose local time (utc + offset) is at or after `local` (seconds): `local`
  // itself less its offset where that local time occurs once; the earlier of two where a clock
  // turned back repeats it; the transition where a clock turned forward skipped it. What the
  // start of a local day, month or year is.
  __int128 FirstInstantAtOrAfter(__int128 local) const;
  // The offset that makes `local` (seconds) an instant, local - offset: its one offset where it
  // occurs once, the earlier offset where it occurs twice (the first occurrence), and the offset
  // before a skipped range for a local time inside it (the instant as far after the change as
  // the local time is after the range's start: 02:30 on a night of 02:00 -> 03:00 is 03:30).
  // PostgreSQL's and java.time's reading of a local time.
  int32_t OffsetOfLocal(__int128 local) const;
  // Whether the zone has one offset at every instant (a fixed offset or UTC).
  bool fixed() const { return transitions.empty(); }

 private:
  // Where a local time falls: inside a skipped or repeated range (`changing`) of the change at
  // instant `at` from offset `before` to `after`, or after it with `after` alone.
  struct LocalRange {
    bool changing;
    int32_t before, after;
    __int128 at;
  };
  LocalRange RangeOf(__int128 local) const;
};

// Zone names that mean UTC: "UTC", "Etc/UTC", "Z", "+00:00", "GMT", "Etc/GMT", "utc".
bool IsUtcZone(std::string_view name);
// Whether `t` is a timestamp whose local time differs from UTC somewhere: a zone other than UTC,
// whose fields, truncations and casts to zoneless types go through its rules.
bool InLocalZone(const DataType& t);

// The rules of a zone name: "UTC" and its aliases, a fixed offset ("+05:30", "-08:00"), or a
// name in the tz database ("Europe/Paris") read from $TZDIR or /usr/share/zoneinfo. Loaded once
// a name and kept for the process's life. An unknown name, a malformed file or a zone with leap
// seconds ("right/...") is an error naming the zone.
Result<std::shared_ptr<const ZoneRules>> LoadZoneRules(std::string_view name);
// The zone names this host knows, for suggestions when a name is not one: the UTC names and
// every TZif file under $TZDIR or /usr/share/zoneinfo (not its posix/ and right/ copies), sorted.
// Read once a process; empty without tzdata.
const std::vector<std::string>& KnownTimeZoneNames();
// The rules in a TZif file's bytes (what LoadZoneRules reads; public for the fuzz target): any
// bytes give rules or an error naming `name`, never a crash.
Result<std::shared_ptr<const ZoneRules>> ParseZoneRules(std::string_view name, std::string_view tzif);

}  // namespace rowjit
