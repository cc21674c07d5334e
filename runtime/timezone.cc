// Time zone rules from tzdata (runtime layer). A TZif file (RFC 8536) lists a zone's transitions
// (tzdata's files list them until 2037) and ends with a POSIX TZ string ("CET-1CEST,M3.5.0,
// M10.5.0/3") that rules every later instant; the rule's transitions are generated for 401
// years after the last listed one, and later instants fold into them by whole 400-year
// cycles. Debian's date library (libhowardhinnant-date) reads the same files but ignores that
// rule, answering standard time for every summer after 2037: reading the files here keeps the
// answers right.
#include "runtime/timezone.h"

#include "runtime/environment.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include <fmt/format.h>

namespace rowjit {
namespace {

int64_t FloorDiv(int64_t x, int64_t d) { return x / d - (x % d < 0 ? 1 : 0); }

int64_t DaysOf(int64_t year, unsigned month, unsigned day) {
  return std::chrono::sys_days{std::chrono::year{static_cast<int>(year)} / std::chrono::month{month} / std::chrono::day{day}}
      .time_since_epoch()
      .count();
}
bool IsLeap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }
int64_t YearOf(int64_t utc) {
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{FloorDiv(utc, 86'400)}}};
  return static_cast<int>(ymd.year());
}

Error Bad(std::string_view zone, std::string_view why) {
  return MakeError(ErrorCode::kInvalidInput, "time zone {}: {}", zone, why);
}

// "+05:30", "-08", "+0530": seconds east of UTC.
std::optional<int32_t> FixedOffset(std::string_view s) {
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  std::string digits;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == ':' && i == 3) continue;
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    digits += s[i];
  }
  if (digits.size() != 2 && digits.size() != 4) return std::nullopt;
  const int h = std::stoi(digits.substr(0, 2)), m = digits.size() == 4 ? std::stoi(digits.substr(2)) : 0;
  if (h > 23 || m > 59) return std::nullopt;
  return (s[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
}

// A POSIX TZ string's rule (RFC 8536 section 3.3 extends POSIX: hours of a time in -167..167).
struct PosixRule {
  struct Date {
    char kind = 'M';  // 'J' (1..365, February 29th never counted), 'N' (0..365), 'M'
    int n = 0, month = 0, week = 0, weekday = 0;
  };
  int32_t std_offset = 0;  // seconds east of UTC
  bool dst = false;
  int32_t dst_offset = 0;
  Date start, end;
  int32_t start_time = 7200, end_time = 7200;  // local seconds after midnight (standard, daylight)
};

class PosixParser {
 public:
  explicit PosixParser(std::string_view s) : s_(s) {}

  std::optional<PosixRule> Parse() {
    PosixRule r;
    if (!Name()) return std::nullopt;
    const auto std_west = Offset(24);
    if (!std_west) return std::nullopt;
    r.std_offset = -*std_west;
    if (at_ == s_.size()) return r;
    if (!Name()) return std::nullopt;
    r.dst = true;
    r.dst_offset = r.std_offset + 3600;
    if (at_ < s_.size() && s_[at_] != ',') {
      const auto dst_west = Offset(24);
      if (!dst_west) return std::nullopt;
      r.dst_offset = -*dst_west;
    }
    if (at_ == s_.size() || s_[at_] != ',') return std::nullopt;  // no rule: nothing to follow
    ++at_;
    if (!RuleDate(r.start, r.start_time) || at_ == s_.size() || s_[at_++] != ',' || !RuleDate(r.end, r.end_time)) {
      return std::nullopt;
    }
    if (at_ != s_.size()) return std::nullopt;
    return r;
  }

 private:
  bool Name() {
    if (at_ < s_.size() && s_[at_] == '<') {
      const size_t close = s_.find('>', at_);
      if (close == std::string_view::npos) return false;
      at_ = close + 1;
      return true;
    }
    const size_t start = at_;
    while (at_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[at_]))) ++at_;
    return at_ - start >= 3;
  }
  std::optional<int> Number(int max_digits) {
    const size_t start = at_;
    int v = 0;
    while (at_ < s_.size() && at_ - start < static_cast<size_t>(max_digits) && s_[at_] >= '0' && s_[at_] <= '9') {
      v = v * 10 + (s_[at_++] - '0');
    }
    if (at_ == start) return std::nullopt;
    return v;
  }
  // [+-]hh[:mm[:ss]] in seconds (the sign as written).
  std::optional<int32_t> Offset(int max_hours) {
    int sign = 1;
    if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) sign = s_[at_++] == '-' ? -1 : 1;
    const auto h = Number(3);
    if (!h || *h > max_hours) return std::nullopt;
    int32_t v = *h * 3600;
    for (int32_t scale : {60, 1}) {
      if (at_ >= s_.size() || s_[at_] != ':') break;
      ++at_;
      const auto part = Number(2);
      if (!part || *part > 59) return std::nullopt;
      v += *part * scale;
    }
    return sign * v;
  }
  bool RuleDate(PosixRule::Date& d, int32_t& time) {
    if (at_ < s_.size() && s_[at_] == 'M') {
      ++at_;
      d.kind = 'M';
      const auto m = Number(2);
      if (!m || at_ >= s_.size() || s_[at_++] != '.') return false;
      const auto w = Number(1);
      if (!w || at_ >= s_.size() || s_[at_++] != '.') return false;
      const auto wd = Number(1);
      if (!wd || *m < 1 || *m > 12 || *w < 1 || *w > 5 || *wd > 6) return false;
      d.month = *m, d.week = *w, d.weekday = *wd;
    } else {
      d.kind = at_ < s_.size() && s_[at_] == 'J' ? 'J' : 'N';
      if (d.kind == 'J') ++at_;
      const auto n = Number(3);
      if (!n || (d.kind == 'J' ? (*n < 1 || *n > 365) : *n > 365)) return false;
      d.n = *n;
    }
    if (at_ < s_.size() && s_[at_] == '/') {
      ++at_;
      const auto t = Offset(167);
      if (!t) return false;
      time = *t;
    }
    return true;
  }

  std::string_view s_;
  size_t at_ = 0;
};

// Days since 1970 of a rule's date in `year`.
int64_t RuleDay(const PosixRule::Date& d, int64_t year) {
  const int64_t jan1 = DaysOf(year, 1, 1);
  if (d.kind == 'J') return jan1 + d.n - 1 + (IsLeap(year) && d.n >= 60 ? 1 : 0);
  if (d.kind == 'N') return jan1 + d.n;
  const int64_t first = DaysOf(year, static_cast<unsigned>(d.month), 1);
  const int64_t next = d.month == 12 ? DaysOf(year + 1, 1, 1) : DaysOf(year, static_cast<unsigned>(d.month + 1), 1);
  const int64_t weekday = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday (4)
  int64_t day = first + (d.weekday - weekday + 7) % 7 + 7 * (d.week - 1);
  while (day >= next) day -= 7;  // week 5: the last such weekday
  return day;
}

// Big-endian integers of a TZif file.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Has(size_t n) const { return n <= data_.size() - at_; }
  int64_t Int(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<uint8_t>(data_[at_++]);
    const int shift = 64 - 8 * bytes;
    return static_cast<int64_t>(v << shift) >> shift;
  }
  uint8_t Byte() { return static_cast<uint8_t>(data_[at_++]); }
  void Skip(size_t n) { at_ += n; }
  size_t at() const { return at_; }
  std::string_view rest() const { return data_.substr(at_); }

 private:
  std::string_view data_;
  size_t at_ = 0;
};

struct Counts {
  int64_t isut, isstd, leap, time, type, chars;
  size_t Size(int time_bytes) const {
    return static_cast<size_t>(time * time_bytes + time + type * 6 + chars + leap * (time_bytes + 4) + isstd + isut);
  }
};

std::optional<Counts> Header(Reader& r, char& version) {
  if (!r.Has(44) || r.rest().substr(0, 4) != "TZif") return std::nullopt;
  r.Skip(4);
  version = static_cast<char>(r.Byte());
  r.Skip(15);
  Counts c{r.Int(4), r.Int(4), r.Int(4), r.Int(4), r.Int(4), r.Int(4)};
  for (int64_t n : {c.isut, c.isstd, c.leap, c.time, c.type, c.chars}) {
    if (n < 0 || n > 100'000) return std::nullopt;
  }
  if (c.type < 1) return std::nullopt;
  return c;
}

}  // namespace

Result<std::shared_ptr<const ZoneRules>> ParseZoneRules(std::string_view zone, std::string_view data) {
  Reader r(data);
  char version = 0;
  auto counts = Header(r, version);
  if (!counts || !r.Has(counts->Size(4))) return Bad(zone, "not a TZif file");
  int time_bytes = 4;
  if (version >= '2') {  // skip the 32-bit block: the 64-bit one follows
    r.Skip(counts->Size(4));
    counts = Header(r, version);
    if (!counts || !r.Has(counts->Size(8))) return Bad(zone, "a truncated TZif file");
    time_bytes = 8;
  }
  if (counts->leap > 0) return Bad(zone, "a zone with leap seconds is not POSIX time (use the zone without 'right/')");
  std::vector<int64_t> times(static_cast<size_t>(counts->time));
  for (int64_t& t : times) t = r.Int(time_bytes);
  std::vector<uint8_t> index(times.size());
  for (uint8_t& i : index) i = r.Byte();
  std::vector<int32_t> type_offsets(static_cast<size_t>(counts->type));
  for (int32_t& o : type_offsets) {
    o = static_cast<int32_t>(r.Int(4));
    r.Skip(2);  // isdst, abbreviation index
    if (o < -25 * 3600 || o > 26 * 3600) return Bad(zone, "an offset past a day");
  }
  r.Skip(static_cast<size_t>(counts->chars + counts->isstd + counts->isut));
  auto rules = std::make_shared<ZoneRules>();
  rules->name = std::string(zone);
  rules->offsets.push_back(type_offsets[0]);
  for (size_t i = 0; i < times.size(); ++i) {
    if (index[i] >= type_offsets.size() || (i > 0 && times[i] <= times[i - 1])) return Bad(zone, "a malformed transition");
    if (type_offsets[index[i]] == rules->offsets.back()) continue;  // a change of name or of DST flag only
    rules->transitions.push_back(times[i]);
    rules->offsets.push_back(type_offsets[index[i]]);
  }
  // The footer: "\n" POSIX TZ string "\n" (version 2 and later).
  std::string_view footer = r.rest();
  if (time_bytes == 8 && footer.size() >= 2 && footer.front() == '\n') {
    footer = footer.substr(1, footer.find('\n', 1) == std::string_view::npos ? 0 : footer.find('\n', 1) - 1);
  } else {
    footer = {};
  }
  if (footer.empty()) return std::shared_ptr<const ZoneRules>(std::move(rules));
  const std::optional<PosixRule> rule = PosixParser(footer).Parse();
  if (!rule) {
    // A fixed offset without DST parses; anything else this reader does not follow is refused
    // rather than answered with the last listed offset.
    return Bad(zone, fmt::format("its rule '{}' is not one this reader follows", footer));
  }
  const int64_t last = times.empty() ? INT64_MIN : times.back();
  if (!rule->dst) {
    if (rule->std_offset != rules->offsets.back() && last != INT64_MAX) {
      rules->transitions.push_back(last == INT64_MIN ? INT64_MIN + 1 : last + 1);
      rules->offsets.push_back(rule->std_offset);
    }
    return std::shared_ptr<const ZoneRules>(std::move(rules));
  }
  if (last != INT64_MIN && (last > (int64_t{1} << 39) || last < -(int64_t{1} << 39))) {
    return Bad(zone, "a rule after transitions past 17,000 years from 1970");
  }
  // Recurring transitions from the year of the last listed one (which may be a marker that
  // changes nothing, as 2038-01-19 in older files), 401 years of them; the rule agrees with the
  // listed transitions where both exist.
  const int64_t first_year = last == INT64_MIN ? 1970 : YearOf(last);
  struct Step {
    int64_t at;
    int32_t offset;
    bool to_dst;
  };
  std::vector<Step> steps;
  for (int64_t y = first_year; y <= first_year + 400; ++y) {
    steps.push_back({RuleDay(rule->start, y) * 86'400 + rule->start_time - rule->std_offset, rule->dst_offset, true});
    steps.push_back({RuleDay(rule->end, y) * 86'400 + rule->end_time - rule->dst_offset, rule->std_offset, false});
  }
  // In time order; at one instant the end of one year's DST before the next one's start (a zone
  // in DST all year writes its rule as ending when it starts again).
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.at != b.at ? a.at < b.at : (!a.to_dst && b.to_dst);
  });
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].at <= last) continue;
    if (i + 1 < steps.size() && steps[i + 1].at == steps[i].at) continue;  // the later one at this instant holds
    if (steps[i].offset == rules->offsets.back()) continue;
    rules->transitions.push_back(steps[i].at);
    rules->offsets.push_back(steps[i].offset);
  }
  rules->cyclic = true;
  // Whole years of the rule alone (a zone's listed transitions may depart from its rule in their
  // last year: Gaza's Ramadan changes), repeating every 400 years.
  rules->cycle_start = DaysOf(first_year + 1, 1, 1) * 86'400;
  return std::shared_ptr<const ZoneRules>(std::move(rules));
}

namespace {

Result<std::shared_ptr<const ZoneRules>> Load(std::string_view name) {
  auto rules = std::make_shared<ZoneRules>();
  rules->name = std::string(name);
  if (IsUtcZone(name)) {
    rules->offsets = {0};
    return std::shared_ptr<const ZoneRules>(std::move(rules));
  }
  if (const auto offset = FixedOffset(name)) {
    rules->offsets = {*offset};
    return std::shared_ptr<const ZoneRules>(std::move(rules));
  }
  // A tz database name: letters, digits, '/', '_', '-', '+', no empty or dot-dot component.
  bool ok = !name.empty() && name.front() != '/' && name.find("..") == std::string_view::npos && name.size() <= 64;
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' || c == '+');
  if (!ok) return Bad(name, "not a zone name of the tz database ('Europe/Paris') or an offset ('+05:30')");
  const std::string path = fmt::format("{}/{}", ZoneDirectoryVariable().value_or("/usr/share/zoneinfo"), name);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Bad(name, fmt::format("unknown (no {}; is tzdata installed?)", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  if (data.size() > (1 << 20)) return Bad(name, "a TZif file over 1 MiB");
  return ParseZoneRules(name, data);
}

}  // namespace

bool IsUtcZone(std::string_view name) {
  return name == "UTC" || name == "Etc/UTC" || name == "Z" || name == "+00:00" || name == "GMT" || name == "Etc/GMT" ||
         name == "utc";
}

bool InLocalZone(const DataType& t) {
  return t.logical == LogicalKind::kTimestamp && t.tz != 0 && !IsUtcZone(TimeZoneName(t.tz));
}

int32_t ZoneRules::OffsetAt(__int128 utc) const {
  if (cyclic && utc >= cycle_start + kCycleSeconds) utc = cycle_start + (utc - cycle_start) % kCycleSeconds;
  const auto at = std::upper_bound(transitions.begin(), transitions.end(), utc) - transitions.begin();
  return offsets[static_cast<size_t>(at)];
}

ZoneRules::LocalRange ZoneRules::RangeOf(__int128 local) const {
  __int128 shift = 0;  // whole cycles folded away, given back to the change's instant
  if (cyclic && local >= cycle_start + kCycleSeconds) {
    shift = (local - cycle_start) / kCycleSeconds * kCycleSeconds;
    local -= shift;
  }
  // Around transition i the local clock reads transitions[i] + offsets[i] just before it and
  // transitions[i] + offsets[i + 1] after it: local times between the two are skipped (a clock
  // turned forward) or repeated (turned back). The last transition whose range starts at or
  // before `local`:
  auto starts = [&](size_t i) { return static_cast<__int128>(transitions[i]) + std::min(offsets[i], offsets[i + 1]); };
  size_t lo = 0, hi = transitions.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (starts(mid) <= local) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return {false, offsets[0], offsets[0], 0};  // before every transition
  const size_t i = lo - 1;
  const int32_t before = offsets[i], after = offsets[i + 1];
  const bool settled = local >= static_cast<__int128>(transitions[i]) + std::max(before, after);
  return {!settled, before, after, transitions[i] + shift};
}

__int128 ZoneRules::FirstInstantAtOrAfter(__int128 local) const {
  const LocalRange r = RangeOf(local);
  if (!r.changing) return local - r.after;
  return r.after > r.before ? r.at : local - r.before;  // skipped: the change; repeated: the first
}

int32_t ZoneRules::OffsetOfLocal(__int128 local) const {
  const LocalRange r = RangeOf(local);
  return r.changing ? r.before : r.after;
}

const std::vector<std::string>& KnownTimeZoneNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"UTC"};
    namespace fs = std::filesystem;
    const fs::path root = ZoneDirectoryVariable().value_or("/usr/share/zoneinfo");
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().lexically_relative(root).generic_string();
      if (it->is_directory(ec)) {
        if (name == "posix" || name == "right") it.disable_recursion_pending();
        continue;
      }
      if (name.find('.') != std::string::npos || !it->is_regular_file(ec) || name == "posixrules") continue;
      char magic[4] = {};
      std::ifstream in(it->path(), std::ios::binary);
      if (in.read(magic, 4) && std::string_view(magic, 4) == "TZif") out.push_back(name);
    }
    std::sort(out.begin() + 1, out.end());
    return out;
  }();
  return names;
}

Result<std::shared_ptr<const ZoneRules>> LoadZoneRules(std::string_view name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const ZoneRules>, std::less<>> loaded;
  std::lock_guard lock(mu);
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;
  ROWJIT_ASSIGN_OR_RETURN(std::shared_ptr<const ZoneRules> rules, Load(name));
  auto stamped = std::make_shared<ZoneRules>(*rules);
  uint64_t h = 0xcbf29ce484222325;
  auto mix = [&](int64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((static_cast<uint64_t>(v) >> (8 * i)) & 0xff)) * 0x100000001b3;
  };
  for (int64_t t : stamped->transitions) mix(t);
  for (int32_t o : stamped->offsets) mix(o);
  mix(stamped->cyclic ? stamped->cycle_start : -1);
  stamped->fingerprint = h;
  loaded.emplace(std::string(name), stamped);
  return std::shared_ptr<const ZoneRules>(std::move(stamped));
}

}  // namespace rowjit
