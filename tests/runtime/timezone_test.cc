// Time zone rules read from tzdata against glibc's own reading of the same files (localtime_r
// with TZ set: a different implementation, which follows the POSIX rule past the listed
// transitions), at random instants from 1800 to 2800 and at every transition ±1 s; the first
// instant of a local time at DST changes; names and refusals (runtime).
#include "runtime/timezone.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <random>

#include "support/assert_ok.h"
#include "support/tzif.h"

namespace rowjit {
namespace {

constexpr const char* kZones[] = {"Europe/Paris",   "America/New_York", "Australia/Sydney", "America/Sao_Paulo",
                                  "Asia/Kolkata",   "Pacific/Chatham",  "America/St_Johns", "Africa/Casablanca",
                                  "Europe/Dublin",  "Antarctica/Troll", "Asia/Tehran",      "America/Nuuk",
                                  "Europe/London",  "America/Santiago", "Asia/Gaza",        "Pacific/Apia",
                                  "Etc/GMT+5",      "Asia/Tokyo",       "Pacific/Kiritimati", "America/Los_Angeles"};

int64_t GlibcOffset(int64_t utc) {
  const time_t t = static_cast<time_t>(utc);
  struct tm tm {};
  EXPECT_NE(localtime_r(&t, &tm), nullptr);
  return tm.tm_gmtoff;
}

TEST(TimeZone, OffsetsEqualGlibcs) {
  const char* saved = std::getenv("TZ");
  const std::string restore = saved ? saved : "";
  int compared = 0;
  for (const char* zone : kZones) {
    SCOPED_TRACE(zone);
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<const ZoneRules> rules, LoadZoneRules(zone));
    ASSERT_EQ(setenv("TZ", fmt::format(":{}", zone).c_str(), 1), 0);
    tzset();
    std::mt19937_64 rng(std::hash<std::string_view>{}(zone));
    const int64_t lo = -5'364'662'400, hi = 26'192'246'400;  // 1800 .. 2800
    std::vector<int64_t> instants;
    for (int i = 0; i < 4000; ++i) instants.push_back(lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo)));
    for (int64_t t : rules->transitions) {
      for (int64_t d : {-1, 0, 1}) {
        if (t > lo && t < hi) instants.push_back(t + d);
      }
    }
    // Past the generated 400 years: the fold by whole cycles.
    if (rules->cyclic) {
      for (int64_t t : rules->transitions) {
        if (t >= rules->cycle_start && t < hi) {
          instants.push_back(t + ZoneRules::kCycleSeconds);
          instants.push_back(t + ZoneRules::kCycleSeconds - 1);
        }
      }
    }
    for (int64_t t : instants) {
      ASSERT_EQ(rules->OffsetAt(t), GlibcOffset(t)) << "at " << t;
      ++compared;
    }
  }
  if (saved) {
    setenv("TZ", restore.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  EXPECT_GT(compared, 80'000);
}

// The first instant whose local time is at or after L: one instant where L occurs once, the
// earlier of two where a clock turned back, the transition where it turned forward; for random
// instants u, FirstInstantAtOrAfter(local(u)) is u or an earlier instant with that local time,
// and the second before it is earlier in local time.
TEST(TimeZone, FirstInstantOfALocalTime) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const ZoneRules> paris, LoadZoneRules("Europe/Paris"));
  // 2024-03-31: 02:00 CET became 03:00 CEST at 01:00 UTC (1711846800); 2024-10-27: 03:00 CEST
  // became 02:00 CET at 01:00 UTC (1729990800).
  const int64_t spring = 1'711'846'800, autumn = 1'729'990'800;
  EXPECT_EQ(paris->FirstInstantAtOrAfter(spring + 3600 + 1800), spring);          // 02:30, skipped
  EXPECT_EQ(paris->FirstInstantAtOrAfter(spring + 3600 - 1), spring - 1);         // 01:59:59 CET
  EXPECT_EQ(paris->FirstInstantAtOrAfter(spring + 7200), spring);                 // 03:00 CEST
  EXPECT_EQ(paris->FirstInstantAtOrAfter(autumn + 3600 + 1800), autumn - 1800);   // 02:30, the first
  EXPECT_EQ(paris->FirstInstantAtOrAfter(autumn + 3600 * 2), autumn + 3600);      // 03:00 CET
  // A local time as an instant: 02:30 of the spring night is read with the offset before (03:30
  // CEST, 01:30 UTC), 02:30 of the autumn night with the earlier offset (00:30 UTC).
  EXPECT_EQ(paris->OffsetOfLocal(spring + 3600 + 1800), 3600);
  EXPECT_EQ(paris->OffsetOfLocal(autumn + 3600 + 1800), 7200);
  EXPECT_EQ(paris->OffsetOfLocal(autumn + 3 * 3600), 3600);
  // 2050 (past the listed transitions): summer time still, 2050-07-01 12:00 CEST is 10:00 UTC.
  EXPECT_EQ(paris->FirstInstantAtOrAfter(2'540'203'200 + 12 * 3600), 2'540'203'200 + 10 * 3600);
  EXPECT_EQ(paris->OffsetAt(2'540'203'200), 7200);
  for (const char* zone : kZones) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<const ZoneRules> rules, LoadZoneRules(zone));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20'000; ++i) {
      const int64_t u = -5'364'662'400 + static_cast<int64_t>(rng() % 40'000'000'000ull);
      const __int128 local = u + rules->OffsetAt(u);
      const __int128 first = rules->FirstInstantAtOrAfter(local);
      ASSERT_LE(first, u) << zone << " " << u;
      ASSERT_EQ(first + rules->OffsetAt(first), local) << zone << " " << u;
      ASSERT_LT(first - 1 + rules->OffsetAt(first - 1), local) << zone << " " << u;
    }
  }
}

// A synthetic zone whose clock changes across midnight both ways (UTC 23:30, an hour forward
// then back), as no real zone does: local midnight strictly inside a skipped hour and inside a
// repeated one.
TEST(TimeZone, MidnightInsideASkippedOrRepeatedHour) {
  const std::vector<int64_t> at = test::InstallMidnightZone();
  ASSERT_OK_AND_ASSIGN(auto z, LoadZoneRules("Test/Midnight"));
  EXPECT_FALSE(z->cyclic);
  EXPECT_EQ(z->OffsetAt(at[0] - 1), 0);
  EXPECT_EQ(z->OffsetAt(at[0]), 3600);
  EXPECT_EQ(z->OffsetAt(at[1]), 0);
  EXPECT_EQ(z->OffsetAt(int64_t{1} << 40), 0);
  // Day 1's local midnight (86,400) was skipped: its first instant is the change at 23:30 UTC.
  EXPECT_EQ(z->FirstInstantAtOrAfter(86'400), at[0]);
  EXPECT_EQ(z->FirstInstantAtOrAfter(86'400 + 1800), at[0]);  // 00:30: the change too
  EXPECT_EQ(z->FirstInstantAtOrAfter(86'400 + 1801), at[0] + 1);
  // Day 92's local midnight came twice (23:30 UTC less 30 minutes, and 30 minutes after): the first.
  const int64_t day92 = int64_t{92} * 86'400;
  EXPECT_EQ(z->FirstInstantAtOrAfter(day92), day92 - 3600);
  EXPECT_EQ(z->FirstInstantAtOrAfter(day92 + 1800), day92 + 1800);  // 00:30 once more: after the change
}

TEST(TimeZone, NamesAndRefusals) {
  ASSERT_OK_AND_ASSIGN(auto fixed, LoadZoneRules("+05:30"));
  EXPECT_TRUE(fixed->fixed());
  EXPECT_EQ(fixed->OffsetAt(0), 19'800);
  ASSERT_OK_AND_ASSIGN(auto west, LoadZoneRules("-0800"));
  EXPECT_EQ(west->OffsetAt(0), -28'800);
  ASSERT_OK_AND_ASSIGN(auto utc, LoadZoneRules("Etc/UTC"));
  EXPECT_EQ(utc->OffsetAt(1'000'000'000), 0);
  ASSERT_OK_AND_ASSIGN(auto again, LoadZoneRules("Europe/Paris"));
  ASSERT_OK_AND_ASSIGN(auto same, LoadZoneRules("Europe/Paris"));
  EXPECT_EQ(again.get(), same.get());  // loaded once
  EXPECT_TRUE(again->cyclic);
  for (const char* bad : {"Mars/Olympus_Mons", "../etc/passwd", "/usr/share/zoneinfo/UTC", "Europe/../../x", "+25:00",
                          "right/Europe/Paris", "", "Europe/Paris\n"}) {
    auto r = LoadZoneRules(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message().find("time zone"), std::string::npos) << r.error().ToString();
    }
  }
}

}  // namespace
}  // namespace rowjit
