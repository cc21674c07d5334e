// Temporal row functions (ir layer): fields of dates, timestamps and times, and truncation.
//   year month day quarter day_of_week (Sunday 0) day_of_year (January 1st is 1) hour minute
//   second (whole seconds) epoch (whole seconds since 1970, rounded down) -> i64
//   date_trunc_{year,quarter,month,week,day,hour,minute,second,millisecond,microsecond}(t) -> t's type
// over date32/date64 and timestamps without a zone or in UTC (hour, minute, second also over
// times); `date_part('year', t)` and `date_trunc('month', t)` bind to these (ir/binder.cc).
// The proleptic Gregorian calendar at every value the storage holds; weeks start on Monday (ISO).
// A truncation whose result falls below the storage's range is an overflow error.
//
// The reference computes through std::chrono (a different algorithm from the kernels' civil
// arithmetic, jit/codegen/lower/temporal.cc), shifted by whole 400-year cycles into its range.
#include "ir/temporal.h"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "ir/function_internal.h"
#include "runtime/timezone.h"

namespace rowjit::ir {
namespace {

int64_t FloorDiv(int64_t x, int64_t d) { return x / d - (x % d < 0 ? 1 : 0); }
int64_t FloorMod(int64_t x, int64_t d) { return x % d + (x % d < 0 ? d : 0); }

constexpr int64_t kCycleDays = 146'097;  // 400 Gregorian years: the calendar and weekdays repeat
constexpr int64_t kDayNanos = 86'400'000'000'000;

struct Civil {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

Civil CivilOf(int64_t days) {
  const int64_t cycles = FloorDiv(days, kCycleDays);
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days - cycles * kCycleDays}}};
  return {static_cast<int>(ymd.year()) + cycles * 400, static_cast<int>(static_cast<unsigned>(ymd.month())),
          static_cast<int>(static_cast<unsigned>(ymd.day()))};
}

// Days since 1970-01-01 of a civil date (the day of month valid), in 128 bits: the years of
// timestamp(s) reach 2.9e11.
__int128 DaysOf(int64_t year, int month, int day) {
  const int64_t cycles = FloorDiv(year - 1970, 400);
  const std::chrono::year_month_day ymd{std::chrono::year{static_cast<int>(year - cycles * 400)},
                                        std::chrono::month{static_cast<unsigned>(month)},
                                        std::chrono::day{static_cast<unsigned>(day)}};
  return static_cast<__int128>(std::chrono::sys_days{ymd}.time_since_epoch().count()) +
         static_cast<__int128>(cycles) * kCycleDays;
}

// The value's days since 1970 and units within its day (timestamps, date64: floor).
struct Split {
  int64_t days;
  int64_t within;  // units since midnight
  int64_t per_day;
};

// The zone rules of a timestamp type whose local time differs from UTC somewhere (nullptr for
// dates, times, zoneless and UTC timestamps). The binder loaded them (TemporalArg).
const ZoneRules* ZoneOf(const DataType& t) {
  if (!InLocalZone(t)) return nullptr;
  auto rules = LoadZoneRules(TimeZoneName(t.tz));
  return rules.ok() ? rules->get() : nullptr;  // kept for the process's life
}

// A zoned timestamp's value in local time (units; 128 bits: a local time may pass the storage).
__int128 LocalOf(const Scalar& s, const ZoneRules& zone) {
  const int64_t v = s.value<int64_t>();
  const int64_t per_second = UnitsPerDay(s.type().time_unit()) / 86'400;
  return static_cast<__int128>(v) + static_cast<__int128>(zone.OffsetAt(FloorDiv(v, per_second))) * per_second;
}

// The days and units within the day of the value, in local time for a zoned timestamp.
Split SplitOf(const Scalar& s) {
  const DataType t = s.type();
  const int64_t v = t.id == TypeId::kI32 ? s.value<int32_t>() : s.value<int64_t>();
  const int64_t per_day = UnitsPerDay(t.time_unit());
  if (t.logical == LogicalKind::kTime) return {0, FloorMod(v, per_day), per_day};
  if (const ZoneRules* zone = ZoneOf(t)) {
    const __int128 local = LocalOf(s, *zone);
    const __int128 days = local / per_day - (local % per_day < 0 ? 1 : 0);
    return {static_cast<int64_t>(days), static_cast<int64_t>(local - days * per_day), per_day};
  }
  return {FloorDiv(v, per_day), FloorMod(v, per_day), per_day};
}

Result<Scalar> Field(std::span<const Scalar> a, TemporalField field) {
  const Split s = SplitOf(a[0]);
  const int64_t per_second = s.per_day / 86'400;
  const Civil c = CivilOf(s.days);
  switch (field) {
    case TemporalField::kYear: return Scalar::Of<int64_t>(c.year);
    case TemporalField::kQuarter: return Scalar::Of<int64_t>((c.month - 1) / 3 + 1);
    case TemporalField::kMonth: return Scalar::Of<int64_t>(c.month);
    case TemporalField::kDay: return Scalar::Of<int64_t>(c.day);
    case TemporalField::kDayOfWeek: return Scalar::Of<int64_t>(FloorMod(s.days + 4, 7));  // 1970-01-01: Thursday
    case TemporalField::kDayOfYear:
      return Scalar::Of<int64_t>(static_cast<int64_t>(DaysOf(c.year, c.month, c.day) - DaysOf(c.year, 1, 1)) + 1);
    // A date32 has no time of day (per_second is 0): midnight.
    case TemporalField::kHour: return Scalar::Of<int64_t>(per_second == 0 ? 0 : s.within / (3600 * per_second));
    case TemporalField::kMinute: return Scalar::Of<int64_t>(per_second == 0 ? 0 : s.within / (60 * per_second) % 60);
    case TemporalField::kSecond: return Scalar::Of<int64_t>(per_second == 0 ? 0 : s.within / per_second % 60);
    case TemporalField::kEpoch: {
      const DataType t = a[0].type();
      const int64_t v = t.id == TypeId::kI32 ? a[0].value<int32_t>() : a[0].value<int64_t>();
      return Scalar::Of<int64_t>(per_second == 0 ? v * 86'400 : FloorDiv(v, per_second));
    }
  }
  return Error(ErrorCode::kInternal, "unknown field");
}

// The first day of the unit's period holding `days`.
__int128 TruncDays(int64_t days, TemporalUnit unit) {
  const Civil c = CivilOf(days);
  switch (unit) {
    case TemporalUnit::kYear: return DaysOf(c.year, 1, 1);
    case TemporalUnit::kQuarter: return DaysOf(c.year, (c.month - 1) / 3 * 3 + 1, 1);
    case TemporalUnit::kMonth: return DaysOf(c.year, c.month, 1);
    case TemporalUnit::kWeek: return days - FloorMod(days + 3, 7);  // Monday: 1970-01-05 is one
    default: return days;
  }
}

Result<Scalar> Trunc(std::span<const Scalar> a, DataType result, TemporalUnit unit) {
  const DataType t = a[0].type();
  const Split s = SplitOf(a[0]);
  const int64_t v = t.id == TypeId::kI32 ? a[0].value<int32_t>() : a[0].value<int64_t>();
  __int128 out = v;
  const bool narrow = t.id == TypeId::kI32;
  const __int128 lo = narrow ? INT32_MIN : INT64_MIN, hi = narrow ? INT32_MAX : INT64_MAX;
  if (unit <= TemporalUnit::kDay) {
    out = TruncDays(s.days, unit) * s.per_day;
    if (const ZoneRules* zone = ZoneOf(t)) {
      // The period's local start, then the first instant at or after it; a local start outside
      // the storage is an overflow too (the kernels compute it in the storage).
      if (out < lo || out > hi) {
        return internal::Overflow(fmt::format("{} of {} in {}: the local start does not fit {}", TemporalUnitName(unit), v,
                                              TimeZoneName(t.tz), result.WithNullable(false).ToString()));
      }
      const int64_t per_second = s.per_day / 86'400;
      out = zone->FirstInstantAtOrAfter(out / per_second) * per_second;
    }
  } else if (const int64_t len = UnitLength(unit, s.per_day); len > 1) {
    out = static_cast<__int128>(v) - s.within % len;  // the local time's units within the unit
  }
  if (out < lo) {
    return internal::Overflow(fmt::format("{} of {} does not fit {}", TemporalUnitName(unit), v,
                                          result.WithNullable(false).ToString()));
  }
  const Scalar r = narrow ? Scalar::Of<int32_t>(static_cast<int32_t>(out)) : Scalar::Of<int64_t>(static_cast<int64_t>(out));
  return r.As(result);
}

// The argument a field or truncation takes: a date, a timestamp in UTC or without a zone, or
// (hour, minute, second) a time.
Result<DataType> TemporalArg(std::string_view name, std::span<const DataType> args, bool times, bool dates,
                             bool zones = true) {
  const DataType& t = args[0];
  const bool ok = (dates && t.logical == LogicalKind::kDate) || t.logical == LogicalKind::kTimestamp ||
                  (times && t.logical == LogicalKind::kTime);
  if (!ok) {
    return internal::TypeMismatch(name, args, times ? "a date, timestamp or time" : dates ? "a date or timestamp" : "a timestamp");
  }
  if (InLocalZone(t)) {
    if (!zones) {
      return MakeError(ErrorCode::kUnsupported,
                       "{} of {}: time zones other than UTC are not supported yet (convert to UTC first)", name,
                       t.WithNullable(false).ToString());
    }
    auto rules = LoadZoneRules(TimeZoneName(t.tz));
    if (!rules.ok()) {
      return MakeError(ErrorCode::kUnsupported, "{} of {}: {}", name, t.WithNullable(false).ToString(), rules.error().message());
    }
  }
  return t;
}

template <TemporalField kField>
Result<DataType> FieldRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  constexpr bool kTimes = kField == TemporalField::kHour || kField == TemporalField::kMinute || kField == TemporalField::kSecond;
  ROWJIT_RETURN_NOT_OK(TemporalArg(n, a, kTimes, true).status());
  return DataType(TypeId::kI64, a[0].nullable);
}

template <TemporalField kField>
Result<Scalar> FieldEval(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Field(a, kField);
}

template <TemporalUnit kUnit>
Result<DataType> TruncRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  // Dates truncate to a day or longer; timestamps to any unit (one finer than theirs is no change).
  ROWJIT_ASSIGN_OR_RETURN(DataType t, TemporalArg(n, a, false, kUnit <= TemporalUnit::kDay));
  return t;
}

template <TemporalUnit kUnit>
Result<Scalar> TruncEval(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  return Trunc(a, result, kUnit);
}

// A truncation can fall below the storage's range (the year of INT64_MIN nanoseconds began
// earlier); a field never fails.
bool TruncCanFail(std::span<const DataType>, DataType) { return true; }

// cast(x, T) between temporal types (TemporalCastPlan): exact in 128 bits, every division
// rounding down, then the target's storage.
Result<Scalar> CastEval(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(const TemporalConversion plan, TemporalCastPlan(a[0].type(), result));
  __int128 v = a[0].int128();
  auto floor_div = [](__int128 x, __int128 d) { return x / d - (x % d < 0 ? 1 : 0); };
  const bool narrow = result.id == TypeId::kI32;
  auto past = [&](__int128 x) { return x > (narrow ? INT32_MAX : INT64_MAX) || x < (narrow ? INT32_MIN : INT64_MIN); };
  if (plan.local_from) {
    v = LocalOf(a[0], *ZoneOf(a[0].type()));
    // The local time must fit the source's storage (the kernels compute it there).
    if (v > INT64_MAX || v < INT64_MIN) {
      return internal::Overflow(fmt::format("{}: its local time does not fit {}", a[0].ToString(), a[0].type().ToString()));
    }
  }
  if (plan.to_date) v = floor_div(v, plan.day_units);
  v = floor_div(v * plan.multiply, plan.divide);
  if (plan.local_to && !past(v)) {
    const int64_t per_second = UnitsPerDay(result.time_unit()) / 86'400;
    v -= static_cast<__int128>(ZoneOf(result)->OffsetOfLocal(floor_div(v, per_second))) * per_second;
  }
  if (past(v)) {
    return internal::Overflow(fmt::format("{} does not fit {}", a[0].ToString(), result.WithNullable(false).ToString()));
  }
  return (narrow ? Scalar::Of(static_cast<int32_t>(v)) : Scalar::Of(static_cast<int64_t>(v))).As(result);
}

Result<DataType> CastRule(std::string_view n, std::span<const DataType>, std::optional<TypeId>) {
  return MakeError(ErrorCode::kInvalidInput, "{} is written cast(x, timestamp(ms)) (its target is its type)", n);
}

bool CastCanFail(std::span<const DataType>, DataType) { return true; }

// The parts of an interval (interval_months, interval_days, interval_nanos): what
// add_interval and sub_interval take.
enum class Part { kMonths, kDays, kNanos };

template <Part kPart>
Result<DataType> PartRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (a[0].logical != LogicalKind::kInterval) return internal::TypeMismatch(n, a, "an interval");
  return DataType(kPart == Part::kNanos ? TypeId::kI64 : TypeId::kI32, a[0].nullable);
}

template <Part kPart>
Result<Scalar> PartEval(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  const IntervalParts p = PartsOf(a[0]);
  if constexpr (kPart == Part::kNanos) return Scalar::Of<int64_t>(p.nanos);
  return Scalar::Of<int32_t>(static_cast<int32_t>(kPart == Part::kMonths ? p.months : p.days));
}

// add_interval(t, months:i32, days:i32, nanos:i64) and sub_interval: t moved by the months
// (the day of month kept, or the month's last day where it has fewer), then the days, then the
// nanoseconds, the exact result rounded down to t's unit. A timestamp in a zone other than UTC
// moves its local date (wall-clock time kept), read back as an instant as casts read a local
// time, unless months and days are both 0; the nanoseconds then move the instant.
Result<DataType> IntervalArithRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(DataType t, TemporalArg(n, a, false, true));
  if (a[1].SameType(DataType(TypeId::kI32)) && a[2].SameType(DataType(TypeId::kI32)) &&
      a[3].SameType(DataType(TypeId::kI64))) {
    return t;
  }
  return internal::TypeMismatch(n, a, "a date or timestamp, months:i32, days:i32 and nanoseconds:i64");
}

template <bool kSub>
Result<Scalar> IntervalArithEval(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const Split s = SplitOf(a[0]);
  const int64_t sign = kSub ? -1 : 1;
  const int64_t months = sign * a[1].value<int32_t>(), days = sign * a[2].value<int32_t>();
  const __int128 nanos = static_cast<__int128>(sign) * a[3].value<int64_t>();
  __int128 day = s.days;
  if (months != 0) {
    const Civil c = CivilOf(s.days);
    const int64_t total = c.year * 12 + (c.month - 1) + months;
    const int64_t year = FloorDiv(total, 12);
    const int month = static_cast<int>(FloorMod(total, 12)) + 1;
    const int64_t cycles = FloorDiv(year - 1970, 400);
    const std::chrono::year_month_day_last last{std::chrono::year{static_cast<int>(year - cycles * 400)},
                                                std::chrono::month_day_last{std::chrono::month{static_cast<unsigned>(month)}}};
    const int in_month = static_cast<int>(static_cast<unsigned>(last.day()));
    day = DaysOf(year, month, std::min(c.day, in_month));
  }
  day += days;
  const __int128 unit = kDayNanos / s.per_day;  // nanoseconds a unit of t
  const bool narrow = result.id == TypeId::kI32;
  auto past = [&](__int128 x) { return x > (narrow ? INT32_MAX : INT64_MAX) || x < (narrow ? INT32_MIN : INT64_MIN); };
  __int128 start = day * s.per_day + s.within;
  // In a zone other than UTC the months and days moved the local date: that local time (which
  // must fit the storage) as an instant (which must too), then the time part.
  bool fits = true;
  if (const ZoneRules* zone = ZoneOf(a[0].type()); zone != nullptr && months == 0 && days == 0) {
    start = a[0].value<int64_t>();  // a time part alone moves the instant
  } else if (zone != nullptr) {
    const int64_t per_second = s.per_day / 86'400;
    fits = !past(start);
    if (fits) {
      start -= static_cast<__int128>(zone->OffsetOfLocal(start / per_second - (start % per_second < 0 ? 1 : 0))) * per_second;
      fits = !past(start);
    }
  }
  const __int128 exact = start * unit + nanos;
  const __int128 v = exact / unit - (exact % unit < 0 ? 1 : 0);
  if (!fits || past(v)) {
    return internal::Overflow(fmt::format("{} {} {} months {} days {} nanoseconds does not fit {}", a[0].ToString(),
                                          kSub ? "-" : "+", a[1].value<int32_t>(), a[2].value<int32_t>(),
                                          a[3].value<int64_t>(), result.WithNullable(false).ToString()));
  }
  return (narrow ? Scalar::Of(static_cast<int32_t>(v)) : Scalar::Of(static_cast<int64_t>(v))).As(result);
}

bool AlwaysCanFail(std::span<const DataType>, DataType) { return true; }

// time_add_interval(t, nanos:i64) and time_sub_interval: a time of day moved by an interval's
// nanoseconds, its months and days ignored and the result wrapped into the day, as PostgreSQL's
// time ± interval (time '23:30' + '1 hour' is 00:30; + '1 day 2 hours' moves it 2 hours): the
// exact result rounded down to t's unit, modulo a day. Never an error.
Result<DataType> TimeIntervalRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (a[0].logical == LogicalKind::kTime && a[1].SameType(DataType(TypeId::kI64))) {
    return a[0].WithNullable(internal::AnyNullable(a));
  }
  return internal::TypeMismatch(n, a, "a time and nanoseconds:i64");
}

template <bool kSub>
Result<Scalar> TimeIntervalEval(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const DataType t = a[0].type();
  const bool narrow = t.id == TypeId::kI32;
  const int64_t per_day = UnitsPerDay(t.time_unit());
  const int64_t unit = kDayNanos / per_day;
  const __int128 v = narrow ? a[0].value<int32_t>() : a[0].value<int64_t>();
  const __int128 exact = v * unit + (kSub ? -1 : 1) * static_cast<__int128>(a[1].value<int64_t>());
  const __int128 units = exact / unit - (exact % unit < 0 ? 1 : 0);
  __int128 within = units % per_day;
  if (within < 0) within += per_day;
  return (narrow ? Scalar::Of(static_cast<int32_t>(within)) : Scalar::Of(static_cast<int64_t>(within))).As(result);
}

// interval_from_parts(months:i32, days:i32, nanos:i64): the interval_month_day_nano of three
// parts, what interval arithmetic builds its result from (BindIntervalCall).
Result<DataType> FromPartsRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (a[0].SameType(DataType(TypeId::kI32)) && a[1].SameType(DataType(TypeId::kI32)) &&
      a[2].SameType(DataType(TypeId::kI64))) {
    return DataType::Interval(IntervalUnit::kMonthDayNano).WithNullable(internal::AnyNullable(a));
  }
  return internal::TypeMismatch(n, a, "months:i32, days:i32 and nanoseconds:i64");
}

Result<Scalar> FromPartsEval(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return MonthDayNano(a[0].value<int32_t>(), a[1].value<int32_t>(), a[2].value<int64_t>());
}

// interval_compare(x, y): -1, 0 or 1 as x orders before, with or after y in PostgreSQL's order
// of intervals: each read as one length, a month 30 days and a day 24 hours ('1 month' = '30
// days', '1 day' = '24 hours'), compared exactly.
Result<DataType> CompareIntervalsRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (a[0].logical != LogicalKind::kInterval || a[1].logical != LogicalKind::kInterval) {
    return internal::TypeMismatch(n, a, "two intervals");
  }
  return DataType(TypeId::kI32, internal::AnyNullable(a));
}

Result<Scalar> CompareIntervalsEval(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  const __int128 x = IntervalLength(PartsOf(a[0])), y = IntervalLength(PartsOf(a[1]));
  return Scalar::Of<int32_t>((x > y) - (x < y));
}

#define ROWJIT_FIELD(fname, field, fsummary, fnotes)                                               \
  {.name = fname, .arg_names = {"t"}, .family = Family::kTemporal, .unify_from = -1,                 \
   .type_rule = FieldRule<TemporalField::field>, .eval = FieldEval<TemporalField::field>,           \
   .logical = LogicalArgs::kAny, .summary = fsummary, .notes = fnotes}
#define ROWJIT_TRUNC(fname, unit, fsummary, fnotes)                                                  \
  {.name = fname, .arg_names = {"t"}, .family = Family::kTemporal, .can_fail = TruncCanFail,         \
   .unify_from = -1, .type_rule = TruncRule<TemporalUnit::unit>, .eval = TruncEval<TemporalUnit::unit>, \
   .logical = LogicalArgs::kAny, .summary = fsummary, .notes = fnotes}

const Function kFunctions[] = {
    ROWJIT_FIELD("year", kYear,
        "The year of t's date.",
        "`date_part('year', t)` and `extract(year from t)` bind to it. Dates and timestamps (a zoned one in "
        "its zone's local time), proleptic Gregorian; never fails."),
    ROWJIT_FIELD("quarter", kQuarter,
        "The quarter (1–4) of t's date.",
        "`date_part('quarter', t)` and `extract(quarter from t)` bind to it. Dates and timestamps (a zoned one "
        "in its zone's local time), proleptic Gregorian; never fails."),
    ROWJIT_FIELD("month", kMonth,
        "The month (1–12) of t's date.",
        "`date_part('month', t)` and `extract(month from t)` bind to it. Dates and timestamps (a zoned one in "
        "its zone's local time), proleptic Gregorian; never fails."),
    ROWJIT_FIELD("day", kDay,
        "The day of the month (1–31) of t's date.",
        "`date_part('day', t)` and `extract(day from t)` bind to it. Dates and timestamps (a zoned one in its "
        "zone's local time), proleptic Gregorian; never fails."),
    ROWJIT_FIELD("day_of_week", kDayOfWeek,
        "The day of the week of t's date: Sunday 0 to Saturday 6 (PostgreSQL's `dow`).",
        "`date_part('dow', t)` binds to it. Dates and timestamps (a zoned one in its zone's local time); never "
        "fails."),
    ROWJIT_FIELD("day_of_year", kDayOfYear,
        "The day of the year of t's date, January 1st being 1.",
        "`date_part('doy', t)` binds to it. Dates and timestamps (a zoned one in its zone's local time); never "
        "fails."),
    ROWJIT_FIELD("hour", kHour,
        "The hour (0–23) of t's time of day.",
        "`date_part('hour', t)` binds to it. Dates (at midnight), timestamps (a zoned one in its zone's local "
        "time) and times; never fails."),
    ROWJIT_FIELD("minute", kMinute,
        "The minute (0–59) of t's time of day.",
        "`date_part('minute', t)` binds to it. Dates (at midnight), timestamps (a zoned one in its zone's "
        "local time) and times; never fails."),
    ROWJIT_FIELD("second", kSecond,
        "The whole second (0–59) of t's time of day; the fraction is dropped.",
        "`date_part('second', t)` binds to it. Dates (at midnight), timestamps (a zoned one in its zone's "
        "local time) and times; never fails."),
    ROWJIT_FIELD("epoch", kEpoch,
        "Whole seconds since 1970-01-01 00:00:00 UTC, rounded down (before 1970 too).",
        "`date_part('epoch', t)` binds to it. Dates and timestamps; a zoned timestamp counts from its instant, "
        "not its local time. Never fails."),
    ROWJIT_TRUNC("date_trunc_year", kYear,
        "t truncated to the start of its year (January 1st).",
        "`date_trunc('year', t)` binds to it. A zoned timestamp gives the first instant at or after its local "
        "period's start. A result (or local start) below the storage's range is an `overflow` error."),
    ROWJIT_TRUNC("date_trunc_quarter", kQuarter,
        "t truncated to the start of its quarter.",
        "`date_trunc('quarter', t)` binds to it. A zoned timestamp gives the first instant at or after its "
        "local period's start. A result (or local start) below the storage's range is an `overflow` error."),
    ROWJIT_TRUNC("date_trunc_month", kMonth,
        "t truncated to the start of its month.",
        "`date_trunc('month', t)` binds to it. A zoned timestamp gives the first instant at or after its local "
        "period's start. A result (or local start) below the storage's range is an `overflow` error."),
    ROWJIT_TRUNC("date_trunc_week", kWeek,
        "t truncated to the start of its week, weeks starting on Monday (ISO).",
        "`date_trunc('week', t)` binds to it. A zoned timestamp gives the first instant at or after its local "
        "period's start. A result (or local start) below the storage's range is an `overflow` error."),
    ROWJIT_TRUNC("date_trunc_day", kDay,
        "t truncated to the start of its day.",
        "`date_trunc('day', t)` binds to it. A zoned timestamp gives the first instant at or after its local "
        "period's start. A result (or local start) below the storage's range is an `overflow` error."),
    ROWJIT_TRUNC("date_trunc_hour", kHour,
        "t truncated to the start of its hour.",
        "`date_trunc('hour', t)` binds to it. Timestamps only; a zoned one keeps its instant's offset. A unit "
        "finer than the storage's changes nothing. A result below the storage's range is an `overflow` error."),
    ROWJIT_TRUNC("date_trunc_minute", kMinute,
        "t truncated to the start of its minute.",
        "`date_trunc('minute', t)` binds to it. Timestamps only; a zoned one keeps its instant's offset. A "
        "unit finer than the storage's changes nothing. A result below the storage's range is an `overflow` "
        "error."),
    ROWJIT_TRUNC("date_trunc_second", kSecond,
        "t truncated to the start of its second.",
        "`date_trunc('second', t)` binds to it. Timestamps only; a zoned one keeps its instant's offset. A "
        "unit finer than the storage's changes nothing. A result below the storage's range is an `overflow` "
        "error."),
    ROWJIT_TRUNC("date_trunc_millisecond", kMillisecond,
        "t truncated to the start of its millisecond.",
        "`date_trunc('millisecond', t)` binds to it. Timestamps only; a zoned one keeps its instant's offset. "
        "A unit finer than the storage's changes nothing. A result below the storage's range is an `overflow` "
        "error."),
    ROWJIT_TRUNC("date_trunc_microsecond", kMicrosecond,
        "t truncated to the start of its microsecond.",
        "`date_trunc('microsecond', t)` binds to it. Timestamps only; a zoned one keeps its instant's offset. "
        "A unit finer than the storage's changes nothing. A result below the storage's range is an `overflow` "
        "error."),
    {.name = "temporal_cast", .arg_names = {"t"}, .family = Family::kTemporal, .can_fail = CastCanFail,
     .unify_from = -1, .type_rule = CastRule, .eval = CastEval, .logical = LogicalArgs::kAny,
     .syntax = Syntax::kCast,
     .summary = "A date, time, timestamp or duration converted to the call's temporal type.",
     .notes = "Written `cast(t, timestamp(ms))`. A finer unit multiplies (past the storage: `overflow`); a "
              "coarser unit or a date rounds down. Between a zoned timestamp and a zoneless one or a date, the "
              "zone's local time is meant."},
    {.name = "interval_months", .arg_names = {"i"}, .family = Family::kTemporal, .unify_from = -1,
     .type_rule = PartRule<Part::kMonths>, .eval = PartEval<Part::kMonths>, .logical = LogicalArgs::kAny,
     .summary = "The months part of an interval (0 for interval_day_time).",
     .notes = "What interval arithmetic reads of an interval column. Never fails."},
    {.name = "interval_days", .arg_names = {"i"}, .family = Family::kTemporal, .unify_from = -1,
     .type_rule = PartRule<Part::kDays>, .eval = PartEval<Part::kDays>, .logical = LogicalArgs::kAny,
     .summary = "The days part of an interval (0 for interval_months).",
     .notes = "What interval arithmetic reads of an interval column. Never fails."},
    {.name = "interval_nanos", .arg_names = {"i"}, .family = Family::kTemporal, .unify_from = -1,
     .type_rule = PartRule<Part::kNanos>, .eval = PartEval<Part::kNanos>, .logical = LogicalArgs::kAny,
     .summary = "The time part of an interval in nanoseconds (interval_day_time's milliseconds times 10^6).",
     .notes = "0 for interval_months. What interval arithmetic reads of an interval column. Never fails."},
    {.name = "add_interval", .arg_names = {"t", "months", "days", "nanos"}, .family = Family::kTemporal,
     .can_fail = AlwaysCanFail, .unify_from = -1, .type_rule = IntervalArithRule, .eval = IntervalArithEval<false>,
     .logical = LogicalArgs::kAny,
     .summary = "t moved forward by months, then days, then nanoseconds: what `t + interval` binds to.",
     .notes = "The day of month is kept, or the month's last day where it has fewer (2024-01-31 + 1 month is "
              "2024-02-29); the result rounds down to t's unit. A zoned t moves its local date. A result past "
              "the storage is an `overflow` error."},
    {.name = "sub_interval", .arg_names = {"t", "months", "days", "nanos"}, .family = Family::kTemporal,
     .can_fail = AlwaysCanFail, .unify_from = -1, .type_rule = IntervalArithRule, .eval = IntervalArithEval<true>,
     .logical = LogicalArgs::kAny,
     .summary = "t moved back by months, then days, then nanoseconds: what `t - interval` binds to.",
     .notes = "The day of month is kept, or the month's last day where it has fewer (2024-01-31 + 1 month is "
              "2024-02-29); the result rounds down to t's unit. A zoned t moves its local date. A result past "
              "the storage is an `overflow` error."},
    {.name = "time_add_interval", .arg_names = {"t", "nanos"}, .family = Family::kTemporal, .unify_from = -1,
     .type_rule = TimeIntervalRule, .eval = TimeIntervalEval<false>, .logical = LogicalArgs::kAny,
     .summary = "A time of day moved forward by nanoseconds, modulo a day: what `time + interval` binds to.",
     .notes = "The interval's months and days are ignored (`'23:30' + '1 hour'` is 00:30, `+ '1 day 2 hours'` "
              "moves 2 hours); the result rounds down to the time's unit. Never fails."},
    {.name = "time_sub_interval", .arg_names = {"t", "nanos"}, .family = Family::kTemporal, .unify_from = -1,
     .type_rule = TimeIntervalRule, .eval = TimeIntervalEval<true>, .logical = LogicalArgs::kAny,
     .summary = "A time of day moved back by nanoseconds, modulo a day: what `time - interval` binds to.",
     .notes = "The interval's months and days are ignored (`'23:30' + '1 hour'` is 00:30, `+ '1 day 2 hours'` "
              "moves 2 hours); the result rounds down to the time's unit. Never fails."},
    {.name = "interval_from_parts", .arg_names = {"months", "days", "nanos"}, .family = Family::kTemporal,
     .unify_from = -1, .type_rule = FromPartsRule, .eval = FromPartsEval, .logical = LogicalArgs::kAny,
     .summary = "The interval_month_day_nano of months, days and nanoseconds.",
     .notes = "What interval arithmetic (`i + j`, `-i`, `i * n`) builds its result from; each part is computed "
              "in its storage's checked arithmetic first. Never fails itself."},
    {.name = "interval_compare", .arg_names = {"x", "y"}, .family = Family::kTemporal, .unify_from = -1,
     .type_rule = CompareIntervalsRule, .eval = CompareIntervalsEval, .logical = LogicalArgs::kAny,
     .summary = "-1, 0 or 1 as interval x is shorter than, as long as or longer than y.",
     .notes = "PostgreSQL's order, exact: a month is 30 days and a day 24 hours, so `'1 month'` equals `'30 "
              "days'`. Comparisons of intervals bind to `interval_compare(x, y) op 0`. Never fails."},
};

#undef ROWJIT_FIELD
#undef ROWJIT_TRUNC

}  // namespace

int64_t UnitLength(TemporalUnit unit, int64_t per_day) {
  const int64_t per_second = per_day / 86'400;
  switch (unit) {
    case TemporalUnit::kHour: return 3600 * per_second;
    case TemporalUnit::kMinute: return 60 * per_second;
    case TemporalUnit::kSecond: return per_second;
    case TemporalUnit::kMillisecond: return per_second / 1000;  // 0 below milliseconds: no change
    case TemporalUnit::kMicrosecond: return per_second / 1'000'000;
    default: return per_day;
  }
}

std::string_view TemporalUnitName(TemporalUnit unit) {
  constexpr std::string_view kNames[] = {"date_trunc_year", "date_trunc_quarter", "date_trunc_month",
                                         "date_trunc_week", "date_trunc_day", "date_trunc_hour",
                                         "date_trunc_minute", "date_trunc_second", "date_trunc_millisecond",
                                         "date_trunc_microsecond"};
  return kNames[static_cast<int>(unit)];
}

bool ReadsZoneTables(const Expr& call) {
  if (!call.is_call() || call.function()->family != Family::kTemporal || call.args().empty() || call.name() == "epoch") {
    return false;
  }
  const DataType t = call.args()[0]->type();
  if (call.name() == "temporal_cast") {  // through a local time: a zone meets no zone
    return (InLocalZone(t) && call.type().tz == 0) || (InLocalZone(call.type()) && t.tz == 0);
  }
  return InLocalZone(t);
}

std::optional<std::string> TemporalCallName(std::string_view function, std::string_view part) {
  std::string p(part);
  for (char& ch : p) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (function == "date_trunc") {
    for (std::string_view u : {"year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond",
                               "microsecond"}) {
      if (p == u) return "date_trunc_" + p;
    }
    return std::nullopt;
  }
  if (p == "dow") return "day_of_week";
  if (p == "doy") return "day_of_year";
  for (std::string_view f : {"year", "quarter", "month", "day", "day_of_week", "day_of_year", "hour", "minute",
                             "second", "epoch"}) {
    if (p == f) return p;
  }
  return std::nullopt;
}

namespace {

// Reads `n` decimal digits at `at`, advancing it.
std::optional<int64_t> Digits(std::string_view s, size_t& at, size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[at + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  at += n;
  return v;
}

// 'HH:MM[:SS[.fraction]]' from `at`: units since midnight, or nullopt.
std::optional<int64_t> TimeOfDay(std::string_view s, size_t& at, int64_t per_day) {
  const auto h = Digits(s, at, 2);
  if (!h || at >= s.size() || s[at++] != ':') return std::nullopt;
  const auto m = Digits(s, at, 2);
  std::optional<int64_t> sec = 0;
  const bool seconds = at < s.size() && s[at] == ':';
  if (seconds) sec = Digits(s, ++at, 2);
  if (!m || !sec || *h > 23 || *m > 59 || *sec > 59) return std::nullopt;
  const int64_t per_second = per_day / 86'400;
  int64_t fraction = 0;
  if (seconds && at < s.size() && s[at] == '.') {  // a fraction of the seconds only ('12:34.5' is no time)
    int64_t scale = per_second;
    size_t digits = 0;
    while (++at < s.size() && s[at] >= '0' && s[at] <= '9') {
      if (scale < 10 && s[at] != '0') return std::nullopt;  // finer than the unit
      scale /= 10;
      fraction += (s[at] - '0') * scale;
      ++digits;
    }
    if (digits == 0) return std::nullopt;
  }
  return ((*h * 60 + *m) * 60 + *sec) * per_second + fraction;
}

}  // namespace

TemporalSyntax TemporalSyntax::Of(const DataType& type) {
  return {.kind = type.logical, .unit = type.time_unit(), .wide = type.id == TypeId::kI64, .offsets = type.tz != 0};
}

int32_t TemporalSyntax::Code() const {
  return static_cast<int32_t>(kind) | static_cast<int32_t>(unit) << 8 | int32_t{wide} << 16 | int32_t{offsets} << 17;
}

TemporalSyntax TemporalSyntax::FromCode(int32_t code) {
  return {.kind = static_cast<LogicalKind>(code & 0xff), .unit = static_cast<TimeUnit>((code >> 8) & 0xff),
          .wide = ((code >> 16) & 1) != 0, .offsets = ((code >> 17) & 1) != 0};
}

namespace {

bool IsBlank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// A year: four digits, or a sign and four or more (ISO 8601's expanded form; at most 12).
std::optional<int64_t> Year(std::string_view s, size_t& at) {
  if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    const bool negative = s[at++] == '-';
    size_t n = 0;
    while (at + n < s.size() && n < 13 && s[at + n] >= '0' && s[at + n] <= '9') ++n;
    if (n < 4 || n > 12) return std::nullopt;
    const auto y = Digits(s, at, n);
    return negative ? -*y : *y;
  }
  return Digits(s, at, 4);
}

}  // namespace

TemporalText ParseTemporalText(std::string_view text, const TemporalSyntax& syntax) {
  using Status = TemporalText::Status;
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  const int64_t per_day = UnitsPerDay(syntax.unit);
  size_t at = 0;
  __int128 v = 0;
  Status status = Status::kLocal;
  if (syntax.kind == LogicalKind::kTime) {
    const auto t = TimeOfDay(text, at, per_day);
    if (!t || at != text.size()) return {};
    v = *t;
  } else if (syntax.kind == LogicalKind::kDate || syntax.kind == LogicalKind::kTimestamp) {
    const auto y = Year(text, at);
    const bool dash1 = at < text.size() && text[at++] == '-';
    const auto mo = Digits(text, at, 2);
    const bool dash2 = at < text.size() && text[at++] == '-';
    const auto d = Digits(text, at, 2);
    if (!y || !dash1 || !mo || !dash2 || !d || *mo < 1 || *mo > 12 || *d < 1 || *d > 31) return {};
    const int64_t cycles = FloorDiv(*y, 400);  // the day's validity repeats every 400 years
    if (!std::chrono::year_month_day(std::chrono::year(static_cast<int>(*y - cycles * 400)),
                                     std::chrono::month(static_cast<unsigned>(*mo)),
                                     std::chrono::day(static_cast<unsigned>(*d))).ok()) {
      return {};
    }
    const __int128 days = DaysOf(*y, static_cast<int>(*mo), static_cast<int>(*d));
    int64_t within = 0, offset = 0;
    if (syntax.kind == LogicalKind::kTimestamp && at < text.size()) {
      if (text[at] != ' ' && text[at] != 'T') return {};
      const auto t = TimeOfDay(text, ++at, per_day);
      if (!t) return {};
      within = *t;
      if (at < text.size() && syntax.offsets) {  // an offset: the instant in UTC
        status = Status::kInstant;
        if (text[at] == 'Z') {
          ++at;
        } else if (text[at] == '+' || text[at] == '-') {
          const int64_t sign = text[at] == '+' ? 1 : -1;
          const auto oh = Digits(text, ++at, 2);
          const bool colon = at < text.size() && text[at++] == ':';
          const auto om = Digits(text, at, 2);
          std::optional<int64_t> os = 0;  // seconds: a local mean time's offset
          if (at < text.size() && text[at] == ':') os = Digits(text, ++at, 2);
          if (!oh || !colon || !om || !os || *oh > 23 || *om > 59 || *os > 59) return {};
          offset = sign * ((*oh * 60 + *om) * 60 + *os) * (per_day / 86'400);
        } else {
          return {};
        }
      }
    }
    if (at != text.size()) return {};
    v = syntax.kind == LogicalKind::kDate && !syntax.wide ? days : days * per_day + within - offset;
  } else {
    return {};
  }
  if (v > (syntax.wide ? INT64_MAX : INT32_MAX) || v < (syntax.wide ? INT64_MIN : INT32_MIN)) {
    return {Status::kOutOfRange, 0};
  }
  return {status, static_cast<int64_t>(v)};
}

namespace {

// v >= 0 in decimal, zero-padded to `width` digits (more when it has more), written at `at`;
// returns the end.
char* Padded(char* at, int64_t v, int width) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n < width) digits[n++] = '0';
  while (n > 0) *at++ = digits[--n];
  return at;
}

}  // namespace

std::string TemporalValueText(const Scalar& value) {
  char text[kMaxTemporalText];
  return std::string(text, WriteTemporalText(value, text));
}

char* WriteDateText(int64_t days, char* at) {
  const Civil c = CivilOf(days);
  if (c.year < 0 || c.year > 9999) *at++ = c.year < 0 ? '-' : '+';
  at = Padded(at, c.year < 0 ? -c.year : c.year, 4);
  *at++ = '-';
  at = Padded(at, c.month, 2);
  *at++ = '-';
  return Padded(at, c.day, 2);
}

// At most a sign, a 12-digit year, the rest of the date, the time with 9 fraction digits and
// an offset with seconds: 1 + 12 + 6 + 1 + 8 + 10 + 9 = 47 bytes.
char* WriteTemporalText(const Scalar& value, char* at) {
  const DataType t = value.type();
  if (t.logical == LogicalKind::kDuration) {  // "<count> <unit>s": the literal a duration reads back
    constexpr std::string_view kUnits[] = {"", " seconds", " milliseconds", " microseconds", " nanoseconds"};
    at = std::to_chars(at, at + 20, value.value<int64_t>()).ptr;
    const std::string_view unit = kUnits[static_cast<int>(t.time_unit())];
    return std::copy(unit.begin(), unit.end(), at);
  }
  const Split split = SplitOf(value);
  if (t.logical != LogicalKind::kTime) {
    at = WriteDateText(split.days, at);
    if (t.logical == LogicalKind::kDate) return at;
    *at++ = ' ';
  }
  const int64_t per_second = split.per_day / 86'400;
  const int64_t seconds = split.within / per_second;
  at = Padded(at, seconds / 3600, 2);
  *at++ = ':';
  at = Padded(at, seconds / 60 % 60, 2);
  *at++ = ':';
  at = Padded(at, seconds % 60, 2);
  if (const int64_t fraction = split.within % per_second; fraction != 0) {
    int digits = 0;
    for (int64_t p = per_second; p > 1; p /= 10) ++digits;
    *at++ = '.';
    at = Padded(at, fraction, digits);
    while (at[-1] == '0') --at;  // the fraction is not zero: a digit stays
  }
  if (t.logical == LogicalKind::kTimestamp && t.tz != 0) {
    const ZoneRules* zone = ZoneOf(t);
    const int64_t offset = zone == nullptr ? 0 : zone->OffsetAt(FloorDiv(value.value<int64_t>(), per_second));
    const int64_t a = offset < 0 ? -offset : offset;
    *at++ = offset < 0 ? '-' : '+';
    at = Padded(at, a / 3600, 2);
    *at++ = ':';
    at = Padded(at, a / 60 % 60, 2);
    if (a % 60 != 0) {
      *at++ = ':';
      at = Padded(at, a % 60, 2);
    }
  }
  return at;
}

namespace {

std::string_view TemporalForm(const DataType& type) {
  return type.logical == LogicalKind::kDate   ? "'YYYY-MM-DD'"
         : type.logical == LogicalKind::kTime ? "'HH:MM:SS.fraction'"
         : type.tz != 0                       ? "'YYYY-MM-DD HH:MM:SS.fraction' and an optional offset"
                                              : "'YYYY-MM-DD HH:MM:SS.fraction'";
}

}  // namespace

Result<Scalar> TemporalFromText(std::string_view text, const DataType& type) {
  const TemporalText parsed = ParseTemporalText(text, TemporalSyntax::Of(type));
  const std::string name = type.WithNullable(false).ToString();
  if (parsed.status == TemporalText::Status::kInvalid) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{} is not a valid {} ({})", internal::Shown(text), name, TemporalForm(type)));
  }
  auto outside = [&] { return internal::Overflow(fmt::format("{} is outside the range of {}", internal::Shown(text), name)); };
  if (parsed.status == TemporalText::Status::kOutOfRange) return outside();
  __int128 v = parsed.value;
  // No offset written: the zone's local time.
  if (const ZoneRules* zone = ZoneOf(type); zone != nullptr && parsed.status == TemporalText::Status::kLocal) {
    const int64_t per_second = UnitsPerDay(type.time_unit()) / 86'400;
    v -= static_cast<__int128>(zone->OffsetOfLocal(FloorDiv(parsed.value, per_second))) * per_second;
    if (v > INT64_MAX || v < INT64_MIN) return outside();
  }
  const DataType t = type.WithNullable(false);
  return type.id == TypeId::kI32 ? Scalar::Of(static_cast<int32_t>(v)).As(t) : Scalar::Of(static_cast<int64_t>(v)).As(t);
}

Result<Scalar> ParseTemporalLiteral(std::string_view text, const DataType& type) {
  if (type.logical != LogicalKind::kDate && type.logical != LogicalKind::kTime && type.logical != LogicalKind::kTimestamp) {
    return MakeError(ErrorCode::kTypeError, "{} has no literal text", type.WithNullable(false).ToString());
  }
  auto value = TemporalFromText(text, type);
  if (value.ok()) return value;
  return MakeError(ErrorCode::kTypeError, "'{}' is not a {} literal ({})", text, type.WithNullable(false).ToString(),
                   value.error().code() == ErrorCode::kInvalidInput ? TemporalForm(type) : "outside the range of its storage");
}

Status RequireZoneRules(const DataType& type, std::string_view what) {
  if (!InLocalZone(type)) return Status::OK();
  auto rules = LoadZoneRules(TimeZoneName(type.tz));
  if (!rules.ok()) return MakeError(ErrorCode::kUnsupported, "{}: {}", what, rules.error().message());
  return Status::OK();
}

Result<TemporalConversion> TemporalCastPlan(const DataType& from, const DataType& to) {
  const LogicalKind f = from.logical, t = to.logical;
  const bool dated = (f == LogicalKind::kDate || f == LogicalKind::kTimestamp) &&
                     (t == LogicalKind::kDate || t == LogicalKind::kTimestamp);
  if (!(dated || (f == t && (f == LogicalKind::kTime || f == LogicalKind::kDuration)))) {
    return MakeError(ErrorCode::kTypeError,
                     "cast from {} to {}: temporal casts convert dates and timestamps, times to times and durations "
                     "to durations",
                     from.WithNullable(false).ToString(), to.WithNullable(false).ToString());
  }
  const int64_t a = UnitsPerDay(from.time_unit()), b = UnitsPerDay(to.time_unit());
  TemporalConversion plan;
  // A zone meets a zoneless timestamp or a date: through the zone's local time (a zone to a zone
  // is an instant to an instant).
  plan.local_from = InLocalZone(from) && to.tz == 0;
  plan.local_to = InLocalZone(to) && from.tz == 0;
  for (const DataType* zoned : {&from, &to}) {
    if ((zoned == &from ? plan.local_from : plan.local_to)) {
      if (auto rules = LoadZoneRules(TimeZoneName(zoned->tz)); !rules.ok()) {
        return MakeError(ErrorCode::kUnsupported, "cast from {} to {}: {}", from.WithNullable(false).ToString(),
                         to.WithNullable(false).ToString(), rules.error().message());
      }
    }
  }
  if (t == LogicalKind::kDate) {
    plan.to_date = true;
    plan.day_units = a;
    plan.multiply = b;
  } else if (b >= a) {
    plan.multiply = b / a;
  } else {
    plan.divide = a / b;
  }
  return plan;
}

Result<ExprPtr> BindTemporalCast(const ExprPtr& x, DataType to, FoldFn fold) {
  const DataType from = x->type();
  // A literal of the storage type is the value with that storage: cast(19782:i32, date32), the
  // canonical text of a temporal literal (ir/expr.cc); a null literal is a null of the type.
  if (x->is_literal() && !from.is_logical() && (x->value().is_null() || from.id == to.id)) {
    if (x->value().is_null()) return Expr::BoundLiteral(Scalar::Null(to.id).As(to.WithNullable(false)));
    return Expr::BoundLiteral(x->value().As(to.WithNullable(false)));
  }
  if (IsString(from.id)) {  // a row's text, or a literal's (folded): cast(s, date32), cast('2024-02-29', date32)
    if (from.id != TypeId::kUtf8) {
      return MakeError(ErrorCode::kUnsupported, "cast from {} to {}: utf8 text becomes a date, time, timestamp or duration",
                       from.WithNullable(false).ToString(), to.ToString());
    }
    if (to.logical == LogicalKind::kDuration) {  // the interval grammar without months ('90 minutes')
      if (x->is_literal()) {
        if (auto value = ParseDurationLiteral(x->value().str(), to); value.ok()) return Expr::BoundLiteral(*value);
      }
      return fold(Expr::BoundCall(FindFunction("text_to_duration"), {x}, std::nullopt, to.WithNullable(from.nullable)));
    }
    ROWJIT_RETURN_NOT_OK(RequireZoneRules(to, fmt::format("cast from utf8 to {}", to.WithNullable(false).ToString())));
    return fold(Expr::BoundCall(FindFunction("text_to_temporal"), {x}, std::nullopt, to.WithNullable(from.nullable)));
  }
  if (!from.is_logical() || from.logical == LogicalKind::kDecimal || from.logical == LogicalKind::kInterval) {
    return MakeError(ErrorCode::kTypeError, "cast from {} to {}: temporal casts take dates, timestamps, times or durations",
                     from.WithNullable(false).ToString(), to.ToString());
  }
  ROWJIT_RETURN_NOT_OK(TemporalCastPlan(from, to).status());
  if (from.SameType(to)) return x;
  const Function* f = FindFunction("temporal_cast");
  return fold(Expr::BoundCall(f, {x}, std::nullopt, to.WithNullable(from.nullable)));
}

IntervalParts PartsOf(const Scalar& interval) {
  const DataType t = interval.type();
  const auto low = static_cast<uint64_t>(interval.int128());
  switch (static_cast<IntervalUnit>(t.unit)) {
    case IntervalUnit::kMonths: return {interval.value<int32_t>(), 0, 0};
    case IntervalUnit::kDayTime:  // days in the low half, milliseconds in the high one
      return {0, static_cast<int32_t>(low), int64_t{static_cast<int32_t>(low >> 32)} * 1'000'000};
    case IntervalUnit::kMonthDayNano:
      return {static_cast<int32_t>(low), static_cast<int32_t>(low >> 32), static_cast<int64_t>(interval.int128() >> 64)};
  }
  return {};
}

__int128 IntervalLength(const IntervalParts& p) {
  return (static_cast<__int128>(p.months) * 30 + p.days) * kDayNanos + p.nanos;
}

Scalar MonthDayNano(int32_t months, int32_t days, int64_t nanos) {
  const uint64_t low = static_cast<uint32_t>(months) | uint64_t{static_cast<uint32_t>(days)} << 32;
  const auto high = static_cast<unsigned __int128>(static_cast<uint64_t>(nanos));
  return Scalar::Int128(static_cast<__int128>(high << 64 | low), DataType::Interval(IntervalUnit::kMonthDayNano));
}

namespace {

struct IntervalUnitText {
  std::string_view names[4];
  int64_t months = 0, days = 0, nanos = 0;  // one of the unit, in its part
};
constexpr IntervalUnitText kIntervalUnits[] = {
    {{"year", "years", "y", "yr"}, 12, 0, 0},
    {{"month", "months", "mon", "mons"}, 1, 0, 0},
    {{"week", "weeks", "w", ""}, 0, 7, 0},
    {{"day", "days", "d", ""}, 0, 1, 0},
    {{"hour", "hours", "h", "hr"}, 0, 0, 3'600'000'000'000},
    {{"minute", "minutes", "min", "mins"}, 0, 0, 60'000'000'000},
    {{"second", "seconds", "s", "sec"}, 0, 0, 1'000'000'000},
    {{"millisecond", "milliseconds", "ms", ""}, 0, 0, 1'000'000},
    {{"microsecond", "microseconds", "us", ""}, 0, 0, 1'000},
    {{"nanosecond", "nanoseconds", "ns", ""}, 0, 0, 1},
};

}  // namespace

namespace {

// Whether `word` is `name`, letters compared without case.
bool SameUnitName(std::string_view word, std::string_view name) {
  if (word.size() != name.size() || name.empty()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[i])) != name[i]) return false;
  }
  return true;
}

}  // namespace

IntervalTextParse ParseIntervalText(std::string_view text) {
  IntervalTextParse out;
  __int128 months = 0, days = 0, nanos = 0;
  size_t at = 0, parts = 0;
  auto skip_spaces = [&] {
    while (at < text.size() && text[at] == ' ') ++at;
  };
  auto fail = [&](std::string_view why) {
    out.why = why;
    return out;
  };
  for (skip_spaces(); at < text.size(); skip_spaces(), ++parts) {
    const bool negative = text[at] == '-';
    if (text[at] == '-' || text[at] == '+') ++at;
    __int128 whole = 0, fraction = 0, scale = 1;  // fraction / scale, at most 9 digits
    size_t digits = 0;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits) {
      whole = whole * 10 + (text[at] - '0');
      if (whole > INT64_MAX) return fail("a part past 64 bits");
    }
    if (at < text.size() && text[at] == '.') {
      for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits) {
        if (scale == 1'000'000'000) return fail("a fraction finer than a nanosecond");
        fraction = fraction * 10 + (text[at] - '0');
        scale *= 10;
      }
    }
    if (digits == 0) return fail("a part is a number and a unit: '1 month 2 days'");
    skip_spaces();
    const size_t start = at;
    while (at < text.size() && std::isalpha(static_cast<unsigned char>(text[at]))) ++at;
    const std::string_view word = text.substr(start, at - start);
    const IntervalUnitText* u = nullptr;
    for (const IntervalUnitText& candidate : kIntervalUnits) {
      for (std::string_view n : candidate.names) {
        if (SameUnitName(word, n)) u = &candidate;
      }
    }
    if (u == nullptr) {
      out.unknown_unit = word;
      return fail("unknown unit");
    }
    if (fraction != 0 && u->nanos == 0) return fail("only times have fractions");
    const __int128 sign = negative ? -1 : 1;
    months += sign * whole * u->months;
    days += sign * whole * u->days;
    const __int128 fraction_nanos = fraction * u->nanos;
    if (fraction_nanos % scale != 0) return fail("a fraction finer than a nanosecond");
    nanos += sign * (whole * u->nanos + fraction_nanos / scale);
    if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN || nanos > INT64_MAX ||
        nanos < INT64_MIN) {
      return fail("a part past its storage: months and days are 32-bit, nanoseconds 64-bit");
    }
  }
  if (parts == 0) return fail("empty");
  out.parts = {static_cast<int64_t>(months), static_cast<int64_t>(days), static_cast<int64_t>(nanos)};
  return out;
}

std::string_view IntervalStorageOf(const IntervalParts& p, IntervalUnit unit, __int128* storage) {
  const auto d32 = static_cast<uint32_t>(static_cast<int32_t>(p.days));
  switch (unit) {
    case IntervalUnit::kMonths:
      if (p.days != 0 || p.nanos != 0) return "interval_months holds months only";
      *storage = static_cast<int32_t>(p.months);
      return {};
    case IntervalUnit::kDayTime: {
      const int64_t ms = p.nanos / 1'000'000;
      if (p.months != 0 || p.nanos % 1'000'000 != 0 || ms > INT32_MAX || ms < INT32_MIN) {
        return "interval_day_time holds days and 32-bit milliseconds";
      }
      *storage = static_cast<int64_t>(d32 | uint64_t{static_cast<uint32_t>(static_cast<int32_t>(ms))} << 32);
      return {};
    }
    case IntervalUnit::kMonthDayNano:
      *storage = MonthDayNano(static_cast<int32_t>(p.months), static_cast<int32_t>(p.days), p.nanos).int128();
      return {};
  }
  return "unknown interval type";
}

std::string_view DurationStorageOf(const IntervalParts& p, TimeUnit unit, int64_t* storage) {
  if (p.months != 0) return "a duration is a fixed length: no months";
  const int64_t per = kDayNanos / UnitsPerDay(unit);
  const __int128 nanos = static_cast<__int128>(p.days) * kDayNanos + p.nanos;
  if (nanos % per != 0) return "a fraction of its unit";
  const __int128 units = nanos / per;
  if (units > INT64_MAX || units < INT64_MIN) return "past its storage";
  *storage = static_cast<int64_t>(units);
  return {};
}

namespace {

// Why a literal's text is no interval, as its error says it.
std::string Reason(const IntervalTextParse& parsed) {
  if (parsed.unknown_unit.data() != nullptr) return fmt::format("unknown unit '{}'", parsed.unknown_unit);
  return std::string(parsed.why);
}

}  // namespace

Result<Scalar> ParseIntervalLiteral(std::string_view text, const DataType& type) {
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorCode::kTypeError, "'{}' is not a {} literal ({})", text, type.WithNullable(false).ToString(), why);
  };
  const IntervalTextParse parsed = ParseIntervalText(text);
  if (!parsed.why.empty()) return bad(Reason(parsed));
  __int128 storage = 0;
  if (const std::string_view why = IntervalStorageOf(parsed.parts, static_cast<IntervalUnit>(type.unit), &storage);
      !why.empty()) {
    return bad(why);
  }
  const DataType t = type.WithNullable(false);
  if (t.id == TypeId::kI128) return Scalar::Int128(storage, t);
  return Scalar::FromBits(t.id, static_cast<uint64_t>(storage)).As(t);
}

char* WriteIntervalText(const Scalar& interval, char* at) {
  const IntervalParts p = PartsOf(interval);
  char* const start = at;
  auto part = [&](int64_t v, std::string_view unit) {
    if (v == 0) return;
    if (at != start) *at++ = ' ';
    at = std::to_chars(at, at + 20, v).ptr;
    *at++ = ' ';
    at = std::copy(unit.begin(), unit.end(), at);
  };
  part(p.months, "months");
  part(p.days, "days");
  part(p.nanos, "nanoseconds");
  if (at == start) at = std::copy_n("0 days", 6, at);
  return at;
}

std::string IntervalText(const Scalar& interval) {
  char text[kMaxIntervalText];
  return std::string(text, WriteIntervalText(interval, text));
}

namespace {
ExprPtr PartOf(const ExprPtr& i, Part part, FoldFn fold);
ExprPtr FromParts(ExprPtr months, ExprPtr days, ExprPtr nanos, FoldFn fold);
}  // namespace

Result<ExprPtr> BindIntervalCast(const ExprPtr& x, DataType to, FoldFn fold) {
  const DataType from = x->type();
  to = to.WithNullable(false);
  if (x->is_literal() && x->value().is_null()) return Expr::BoundLiteral(Scalar::Null(to.id).As(to));
  if (IsString(from.id) && x->is_literal()) {  // cast('1 month 2 days', interval_month_day_nano)
    if (auto value = ParseIntervalLiteral(x->value().str(), to); value.ok()) return Expr::BoundLiteral(*value);
    // Text that is no interval of the type fails where the same text in a column fails: in its
    // row, as invalid input (a date's cast does the same).
  }
  if (x->is_literal() && !from.is_logical() && from.id == to.id) return Expr::BoundLiteral(x->value().As(to));
  if (from.SameType(to)) return x;
  if (from.id == TypeId::kUtf8 && !from.is_logical()) {  // each row read as a literal's text
    return fold(Expr::BoundCall(FindFunction("text_to_interval"), {x}, std::nullopt, to.WithNullable(from.nullable)));
  }
  const bool widest = static_cast<IntervalUnit>(to.unit) == IntervalUnit::kMonthDayNano;
  if (widest && from.logical == LogicalKind::kInterval) {  // any interval holds in month_day_nano
    return FromParts(PartOf(x, Part::kMonths, fold), PartOf(x, Part::kDays, fold), PartOf(x, Part::kNanos, fold), fold);
  }
  if (widest && from.logical == LogicalKind::kDuration) {  // a fixed length: its nanoseconds (checked)
    const DataType i64(TypeId::kI64);
    ExprPtr nanos = internal::BuildCall("cast", {x}, i64, fold, TypeId::kI64);
    if (const int64_t unit = kDayNanos / UnitsPerDay(from.time_unit()); unit != 1) {
      nanos = internal::BuildCall("mul", {nanos, Expr::BoundLiteral(Scalar::Of<int64_t>(unit))}, i64, fold);
    }
    const ExprPtr zero = Expr::BoundLiteral(Scalar::Of<int32_t>(0));
    return FromParts(zero, zero, nanos, fold);
  }
  return MakeError(ErrorCode::kUnsupported,
                   "cast from {} to {}: an interval is cast from utf8 text, from a duration or another interval to "
                   "interval_month_day_nano, or written as a literal, cast('1 month 2 days', {})",
                   from.WithNullable(false).ToString(), to.ToString(), to.ToString());
}

namespace {

bool IsInterval(const ExprPtr& e) { return e->type().logical == LogicalKind::kInterval; }

// Part `part` of interval i as a bound expression (interval_months(i), ...), a literal 0 where
// i's type does not hold it.
ExprPtr PartOf(const ExprPtr& i, Part part, FoldFn fold) {
  // A computed interval's part is its argument: chains (a + b + c) do not copy their operands.
  if (i->is_call() && i->name() == "interval_from_parts") return i->args()[static_cast<int>(part)];
  const auto unit = static_cast<IntervalUnit>(i->type().unit);
  const bool present = part == Part::kMonths ? unit != IntervalUnit::kDayTime : unit != IntervalUnit::kMonths;
  const TypeId id = part == Part::kNanos ? TypeId::kI64 : TypeId::kI32;
  if (!present) return Expr::BoundLiteral(part == Part::kNanos ? Scalar::Of<int64_t>(0) : Scalar::Of<int32_t>(0));
  constexpr std::string_view kNames[] = {"interval_months", "interval_days", "interval_nanos"};
  return internal::BuildCall(kNames[static_cast<int>(part)], {i}, DataType(id), fold);
}

bool IsZeroLiteral(const ExprPtr& e) {
  if (!e->is_literal() || e->value().is_null()) return false;
  return e->type().id == TypeId::kI64 ? e->value().value<int64_t>() == 0
                                      : e->type().id == TypeId::kI32 && e->value().value<int32_t>() == 0;
}

// x op y for one part of two intervals (op add or sub, in the part's checked arithmetic); a
// literal 0 on the right, or on the left of an add, leaves the other side.
ExprPtr PartArith(std::string_view op, const ExprPtr& x, const ExprPtr& y, FoldFn fold) {
  if (IsZeroLiteral(y)) return x;
  if (op == "add" && IsZeroLiteral(x)) return y;
  return internal::BuildCall(op, {x, y}, x->type(), fold);
}

ExprPtr FromParts(ExprPtr months, ExprPtr days, ExprPtr nanos, FoldFn fold) {
  return internal::BuildCall("interval_from_parts", {std::move(months), std::move(days), std::move(nanos)},
                             DataType::Interval(IntervalUnit::kMonthDayNano), fold);
}

std::string TypeText(const ExprPtr& e) { return e->type().WithNullable(false).ToString(); }

// interval × n for an integer n (cast to i64: a u64 past INT64_MAX is an error in its row): each
// part times n in 64 bits, months and days then narrowed back to 32 (checked casts).
Result<ExprPtr> ScaleInterval(const ExprPtr& i, const ExprPtr& n, FoldFn fold) {
  if (n->type().is_logical() || !IsInteger(n->type().id)) {
    return MakeError(ErrorCode::kTypeError,
                     "mul of {} and {}: an interval is multiplied by an integer (PostgreSQL spills fractions of "
                     "months into 30-day months; rowjit does not)",
                     TypeText(i), TypeText(n));
  }
  const DataType i64(TypeId::kI64);
  const ExprPtr factor = n->type().id == TypeId::kI64 ? n : internal::BuildCall("cast", {n}, i64, fold, TypeId::kI64);
  // A part that is a literal 0 stays 0, unless every part is: then the nanoseconds are multiplied
  // still, so that a null factor gives a null interval ('0 days' * null is null).
  const bool all_zero = IsZeroLiteral(PartOf(i, Part::kMonths, fold)) && IsZeroLiteral(PartOf(i, Part::kDays, fold)) &&
                        IsZeroLiteral(PartOf(i, Part::kNanos, fold));
  auto scaled = [&](Part part) {
    ExprPtr p = PartOf(i, part, fold);
    if (IsZeroLiteral(p) && !(all_zero && part == Part::kNanos)) return p;
    if (part != Part::kNanos) p = internal::BuildCall("cast", {p}, i64, fold, TypeId::kI64);
    ExprPtr product = internal::BuildCall("mul", {p, factor}, i64, fold);
    if (part == Part::kNanos) return product;
    return internal::BuildCall("cast", {product}, DataType(TypeId::kI32), fold, TypeId::kI32);
  };
  return FromParts(scaled(Part::kMonths), scaled(Part::kDays), scaled(Part::kNanos), fold);
}

}  // namespace

Result<std::optional<ExprPtr>> BindIntervalArith(std::string_view function, const ExprPtr& x, const ExprPtr& y,
                                                 std::optional<std::string_view> interval_text, FoldFn fold) {
  using Out = std::optional<ExprPtr>;
  if (function != "add" && function != "sub") return Out();
  auto dated = [](const ExprPtr& e) {
    return e != nullptr && (e->type().logical == LogicalKind::kDate || e->type().logical == LogicalKind::kTimestamp);
  };
  auto timed = [](const ExprPtr& e) { return e != nullptr && e->type().logical == LogicalKind::kTime; };
  auto interval = [&](const ExprPtr& e) { return e == nullptr ? interval_text.has_value() : e->type().logical == LogicalKind::kInterval; };
  const bool sub = function == "sub";
  ExprPtr t, i;
  if ((dated(x) || timed(x)) && interval(y)) {
    t = x, i = y;
  } else if (!sub && interval(x) && (dated(y) || timed(y))) {
    t = y, i = x;
  } else {
    return Out();  // interval ± interval is BindIntervalCall's
  }
  if (i == nullptr) {
    ROWJIT_ASSIGN_OR_RETURN(const Scalar value, ParseIntervalLiteral(*interval_text, DataType::Interval(IntervalUnit::kMonthDayNano)));
    i = Expr::BoundLiteral(value);
  }
  if (timed(t)) {  // a time moves by the nanoseconds alone, wrapped into the day
    const DataType type = t->type().WithNullable(t->type().nullable || i->type().nullable);
    ExprPtr nanos = PartOf(i, Part::kNanos, fold);
    if (i->type().nullable && !nanos->type().nullable) {
      // The nanoseconds of an interval_months (a literal 0) would drop the interval's nulls.
      const ExprPtr none = Expr::BoundLiteral(Scalar::Null(TypeId::kI64));
      const ExprPtr is_null = fold(Expr::BoundCall(FindFunction("is_null"), {i}, std::nullopt, DataType(TypeId::kBool)));
      nanos = fold(Expr::BoundCall(FindFunction("if"), {is_null, none, nanos}, std::nullopt, DataType(TypeId::kI64, true)));
    }
    return Out(fold(Expr::BoundCall(FindFunction(sub ? "time_sub_interval" : "time_add_interval"), {t, nanos},
                                    std::nullopt, type)));
  }
  const IntervalUnit unit = static_cast<IntervalUnit>(i->type().unit);
  if (t->type().logical == LogicalKind::kDate && unit != IntervalUnit::kMonths) {
    const TimeUnit to = unit == IntervalUnit::kDayTime ? TimeUnit::kMilli : TimeUnit::kMicro;
    ROWJIT_ASSIGN_OR_RETURN(t, BindTemporalCast(t, *DataType::Temporal(LogicalKind::kTimestamp, to), fold));
  }
  std::vector<ExprPtr> args = {t, PartOf(i, Part::kMonths, fold), PartOf(i, Part::kDays, fold),
                               PartOf(i, Part::kNanos, fold)};
  const Function* f = FindFunction(sub ? "sub_interval" : "add_interval");
  ROWJIT_RETURN_NOT_OK(TemporalArg(f->name, std::vector<DataType>{t->type()}, false, true).status());
  const DataType type = t->type().WithNullable(t->type().nullable || i->type().nullable);
  return Out(fold(Expr::BoundCall(f, std::move(args), std::nullopt, type)));
}

IntervalMix IntervalTypesOf(std::span<const ExprPtr> args, DataType* one) {
  const ExprPtr* first = nullptr;
  for (const ExprPtr& a : args) {
    if (a == nullptr || !IsInterval(a) || (a->is_literal() && a->value().is_null())) continue;
    if (first == nullptr) first = &a;
    if (!a->type().SameType((*first)->type())) return IntervalMix::kMixed;
  }
  if (first == nullptr) return IntervalMix::kNone;
  if (one != nullptr) *one = (*first)->type();
  return IntervalMix::kOne;
}

bool WidenMixedIntervals(std::span<ExprPtr> args, size_t from, FoldFn fold) {
  args = args.subspan(from);
  // An argument that is neither: the call's refusal names the arguments as written.
  const bool intervals_only = std::all_of(args.begin(), args.end(), [](const ExprPtr& a) {
    return IsInterval(a) || (a->is_literal() && a->value().is_null());
  });
  if (!intervals_only || IntervalTypesOf(args) != IntervalMix::kMixed) return false;
  const DataType widest = DataType::Interval(IntervalUnit::kMonthDayNano);
  for (ExprPtr& a : args) {
    if (a->is_literal() && a->value().is_null()) {
      a = Expr::BoundLiteral(Scalar::Null(widest.id).As(widest));
    } else if (static_cast<IntervalUnit>(a->type().unit) != IntervalUnit::kMonthDayNano) {
      a = FromParts(PartOf(a, Part::kMonths, fold), PartOf(a, Part::kDays, fold), PartOf(a, Part::kNanos, fold), fold);
    }
  }
  return true;
}

Result<std::optional<ExprPtr>> BindIntervalCall(std::string_view function, std::span<const ExprPtr> args, FoldFn fold) {
  using Out = std::optional<ExprPtr>;
  if (std::none_of(args.begin(), args.end(), IsInterval)) return Out();
  const DataType i32(TypeId::kI32), boolean(TypeId::kBool);
  auto refuse = [&](std::string_view want) -> Error {
    std::string types;
    for (const ExprPtr& a : args) types += (types.empty() ? "" : ", ") + TypeText(a);
    return MakeError(ErrorCode::kTypeError, "{}({}): {}", function, types, want);
  };
  auto all_intervals = [&] { return std::all_of(args.begin(), args.end(), IsInterval); };
  // interval_compare(x, y) op 0: x op y in PostgreSQL's order.
  auto compare = [&](std::string_view op, const ExprPtr& x, const ExprPtr& y) {
    const ExprPtr order = internal::BuildCall("interval_compare", {x, y}, i32, fold);
    return internal::BuildCall(op, {order, Expr::BoundLiteral(Scalar::Of<int32_t>(0))}, boolean, fold);
  };
  auto logic = [&](std::string_view op, const ExprPtr& x, const ExprPtr& y) {  // Kleene and/or: null where either is
    return internal::BuildCall(op, {x, y}, boolean.WithNullable(x->type().nullable || y->type().nullable), fold);
  };
  constexpr std::string_view kComparisons[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  if (std::find(std::begin(kComparisons), std::end(kComparisons), function) != std::end(kComparisons)) {
    if (!all_intervals()) return refuse("an interval compares with an interval");
    return Out(compare(function, args[0], args[1]));
  }
  if (function == "between") {  // (x >= lo) and (x <= hi), three-valued
    if (!all_intervals()) return refuse("between takes three intervals");
    return Out(logic("and", compare("ge", args[0], args[1]), compare("le", args[0], args[2])));
  }
  if (function == "in_list") {  // x = a or x = b ..., three-valued
    if (!all_intervals()) return refuse("in compares an interval with intervals");
    ExprPtr any = compare("eq", args[0], args[1]);
    for (size_t k = 2; k < args.size(); ++k) any = logic("or", any, compare("eq", args[0], args[k]));
    return Out(any);
  }
  if (function == "greatest" || function == "least") {
    // Bound as themselves: their lowering and evaluation order intervals (nulls skipped, the
    // first of equal ones kept, as PostgreSQL's greatest and least keep theirs).
    for (const ExprPtr& a : args) {
      if (!a->type().SameType(args[0]->type())) return refuse("greatest and least take intervals of one type");
    }
    return Out();
  }
  if (function == "add" || function == "sub") {
    if (!all_intervals()) return refuse("an interval is added to an interval, a date or a timestamp");
    auto part = [&](Part p) { return PartArith(function, PartOf(args[0], p, fold), PartOf(args[1], p, fold), fold); };
    return Out(FromParts(part(Part::kMonths), part(Part::kDays), part(Part::kNanos), fold));
  }
  if (function == "neg") {
    auto part = [&](Part p) {
      const ExprPtr x = PartOf(args[0], p, fold);
      return IsZeroLiteral(x) ? x : internal::BuildCall("neg", {x}, x->type(), fold);
    };
    return Out(FromParts(part(Part::kMonths), part(Part::kDays), part(Part::kNanos), fold));
  }
  if (function == "mul") {
    if (all_intervals()) return refuse("an interval is multiplied by an integer");
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr r, IsInterval(args[0]) ? ScaleInterval(args[0], args[1], fold)
                                                           : ScaleInterval(args[1], args[0], fold));
    return Out(std::move(r));
  }
  if (function == "div") {
    return MakeError(ErrorCode::kUnsupported,
                     "div of intervals is not supported (PostgreSQL spills fractions of months into 30-day months "
                     "and fractions of days into 24-hour days; multiply by an integer instead)");
  }
  return Out();
}

Result<Scalar> ParseDurationLiteral(std::string_view text, const DataType& type) {
  const std::string name = type.WithNullable(false).ToString();
  const IntervalTextParse parsed = ParseIntervalText(text);
  if (!parsed.why.empty()) return MakeError(ErrorCode::kTypeError, "'{}' is not a {} literal ({})", text, name, Reason(parsed));
  int64_t units = 0;
  if (const std::string_view why = DurationStorageOf(parsed.parts, type.time_unit(), &units); !why.empty()) {
    return MakeError(ErrorCode::kTypeError, "'{}' is not a {} literal ({})", text, name, why);
  }
  return Scalar::Of<int64_t>(units).As(type.WithNullable(false));
}

std::span<const Function> TemporalFunctions() { return kFunctions; }

}  // namespace rowjit::ir
