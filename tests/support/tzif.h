// Test support: a synthetic zone written as a TZif file (RFC 8536, version 2) under a temporary
// $TZDIR, for rules no real zone has (a clock change across midnight) (tests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rowjit::test {

// Writes `name` (e.g. "Test/Midnight") under a temporary directory with these transitions (UTC
// seconds, ascending), offsets (seconds east, one more than the transitions: offsets[0] first)
// and POSIX TZ footer, and loads it with LoadZoneRules (which keeps it for the process's life,
// so the zone stays usable after $TZDIR is restored). Fails the test on an error.
void InstallZone(const std::string& name, const std::vector<int64_t>& transitions, const std::vector<int32_t>& offsets,
                 const std::string& footer);

// "Test/Midnight": from 1970, every 91 days the clock goes an hour forward at 23:30 UTC (a
// skipped hour across local midnight) and, 91 days later, back (a repeated one); 240 changes,
// then UTC. Returns the changes' instants.
std::vector<int64_t> InstallMidnightZone();

}  // namespace rowjit::test
