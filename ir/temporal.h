// Calendar facts shared by the temporal functions' reference (ir/functions_temporal.cc), the
// binder and their kernels (jit/codegen/lower/temporal.cc) (ir layer).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ir/expr.h"
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
// Whether a call computes in the local time of its timestamp argument's zone, a zone other than
// UTC (a field but epoch, a truncation): its kernel reads the zone's offset tables.
bool ReadsZoneTables(const Expr& call);
// The catalog function `date_part(part, t)` (any other name: a field) or `date_trunc(part, t)`
// binds to ("year", "day_of_week" for 'dow', "date_trunc_month"), or nullopt for an unknown part.
std::optional<std::string> TemporalCallName(std::string_view function, std::string_view part);

// A cast between temporal types (jit/codegen/lower/temporal.cc, ir/functions_temporal.cc): the value
// times `multiply` or floor-divided by `divide`; to a date, floor-divided to whole days first and
// then times the target's units a day (`to_date`, 1 or 86,400,000). Units a day: date32 1,
// date64 and ms 86,400,000, s 86,400, us 8.64e10, ns 8.64e13.
// Between a zoned timestamp and a zoneless one or a date, the zone's local time: `local_from`,
// the source's instant becomes its local time first (its offset added); `local_to`, the result
// is a local time that becomes an instant of the target's zone last (ZoneRules::OffsetOfLocal).
struct TemporalConversion {
  int64_t multiply = 1;
  int64_t divide = 1;
  bool to_date = false;
  int64_t day_units = 1;  // to_date: the source's units a day, then `multiply` is the target's
  bool local_from = false;
  bool local_to = false;
};
// Between a date and a date or timestamp, a timestamp and a timestamp (both with a zone, any
// zones: instants; one with a zone and one without: the zone's local time), a time and a time, a
// duration and a duration; a type error naming both otherwise, an error naming the zone where
// its rules cannot be read.
Result<TemporalConversion> TemporalCastPlan(const DataType& from, const DataType& to);
// A date, timestamp or time written as text, as a value of `type` (the literal of a comparison
// with such a column, or of cast('2024-02-29', date32)): 'YYYY-MM-DD' for dates; for timestamps
// that, then ' ' or 'T', 'HH:MM[:SS[.fraction]]' and, for a timestamp with a zone, an optional
// 'Z' or '+HH:MM'/'-HH:MM' offset (none: UTC); 'HH:MM[:SS[.fraction]]' for times. A fraction
// finer than the unit, an invalid day or time, or a value out of the storage's range is a type
// error.
Result<Scalar> ParseTemporalLiteral(std::string_view text, const DataType& type);

// What text reads as in a date, time or timestamp type: the grammar of ParseTemporalLiteral, with
// leading and trailing ASCII white space ignored. The zone's rules are not read: a timestamp
// with a zone and no written offset is its local time (kLocal), one with an offset the instant
// (kInstant). kOutOfRange: the date and time are valid but the value (the local time, or the
// instant) does not fit the storage. No allocation: kernels call it a row at a time.
struct TemporalSyntax {
  LogicalKind kind = LogicalKind::kDate;  // kDate, kTime or kTimestamp
  TimeUnit unit = TimeUnit::kDay;
  bool wide = false;     // i64 storage (date64, time64, timestamps)
  bool offsets = false;  // a timestamp with a zone: an offset may follow the time
  static TemporalSyntax Of(const DataType& type);
  // The syntax as a kernel's constant (kind, unit, storage, offsets) and back.
  int32_t Code() const;
  static TemporalSyntax FromCode(int32_t code);
};
struct TemporalText {
  enum class Status : uint8_t { kLocal, kInstant, kInvalid, kOutOfRange };
  Status status = Status::kInvalid;
  int64_t value = 0;
};
TemporalText ParseTemporalText(std::string_view text, const TemporalSyntax& syntax);
// A row's text as a value of `type` (cast(s, date32) over a column): ParseTemporalText, then a
// zone's local time as its instant (ZoneRules::OffsetOfLocal). Text that is not a value of the
// type is invalid input; a value (local time or instant) outside the storage an overflow.
Result<Scalar> TemporalFromText(std::string_view text, const DataType& type);
// The text of a date, time or timestamp value (the reverse of ParseTemporalLiteral): 'YYYY-MM-DD',
// 'HH:MM:SS' with the unit's fraction when it is not zero (trailing zeros dropped), a timestamp
// as both with ' ' between and, with a zone, its local time and '+HH:MM' offset. Years outside
// 0..9999 are written with a sign and at least four digits (ISO 8601's expanded form).
std::string TemporalValueText(const Scalar& value);
// The same written at `at`, which has room for kMaxTemporalText bytes; returns the end.
inline constexpr int kMaxTemporalText = 64;
char* WriteTemporalText(const Scalar& value, char* at);
// A date's text (`days` since 1970-01-01), as WriteTemporalText writes a date.
char* WriteDateText(int64_t days, char* at);
// OK, or kUnsupported naming `what` when `type` is a timestamp whose zone's rules cannot be read
// (its kernels and the reference would otherwise read it as UTC).
Status RequireZoneRules(const DataType& type, std::string_view what);
// cast(x, T) to a temporal type T.
Result<ExprPtr> BindTemporalCast(const ExprPtr& x, DataType to, FoldFn fold);

// An interval's three parts (each interval type holds some: interval_months only months,
// interval_day_time days and milliseconds, interval_month_day_nano all three).
struct IntervalParts {
  int64_t months = 0;
  int64_t days = 0;
  int64_t nanos = 0;
};
IntervalParts PartsOf(const Scalar& interval);
// The interval_month_day_nano of three parts.
Scalar MonthDayNano(int32_t months, int32_t days, int64_t nanos);
// An interval's length in nanoseconds in PostgreSQL's order of intervals (a month 30 days, a day
// 24 hours): what comparisons, greatest/least and min/max order intervals by.
__int128 IntervalLength(const IntervalParts& p);
// An interval written as text, as a value of the interval type `type`: a sequence of
// `[+-]N unit`, units year(s) month(s) week(s) day(s) hour(s) minute(s) second(s)
// millisecond(s) microsecond(s) nanosecond(s) (and the short forms y mon w d h min s ms us ns);
// seconds and their fractions may have a fraction ('1.5 seconds'). A part the type does not
// hold, a fraction finer than a nanosecond or a part past its storage is a type error.
Result<Scalar> ParseIntervalLiteral(std::string_view text, const DataType& type);
// The same grammar's parts without allocating (what the parse helper of text columns calls per
// row): `why` empty and the parts, or a static reason (`unknown_unit` the word where the reason
// is an unknown unit).
struct IntervalTextParse {
  IntervalParts parts;
  std::string_view why;
  std::string_view unknown_unit;
};
IntervalTextParse ParseIntervalText(std::string_view text);
// Parts as the storage of an interval type or a duration unit: empty, or why they do not fit.
std::string_view IntervalStorageOf(const IntervalParts& p, IntervalUnit unit, __int128* storage);
std::string_view DurationStorageOf(const IntervalParts& p, TimeUnit unit, int64_t* storage);
// The canonical text of an interval value ("14 months 3 days 5000 nanoseconds"; "0 days").
std::string IntervalText(const Scalar& interval);
// The same written at `at`, which has room for kMaxIntervalText bytes; returns the end.
inline constexpr int kMaxIntervalText = 72;  // "-2147483648 months -2147483648 days -9223372036854775808 nanoseconds"
char* WriteIntervalText(const Scalar& interval, char* at);
// cast(x, T) to an interval type T: literals (text, or the storage's integer) and text columns
// (text_to_interval).
Result<ExprPtr> BindIntervalCast(const ExprPtr& x, DataType to, FoldFn fold);
// `t + i`, `i + t`, `t - i` for a date or timestamp t and an interval i (a bound interval, or
// `interval_text`, the text of an untyped string literal): add_interval/sub_interval(t, months,
// days, nanos). A date with an interval that has days and times becomes a timestamp first:
// timestamp(ms) with interval_day_time, timestamp(us) with interval_month_day_nano (PostgreSQL
// and DuckDB return a timestamp). nullopt when the call is not one of these.
Result<std::optional<ExprPtr>> BindIntervalArith(std::string_view function, const ExprPtr& x, const ExprPtr& y,
                                                 std::optional<std::string_view> interval_text, FoldFn fold);
// A call over intervals that is not a date's or timestamp's arithmetic, its arguments bound (an
// untyped string literal beside an interval read as an interval, an untyped number as i64):
//   - comparisons (eq ne lt le gt ge, between, in_list) in PostgreSQL's order, a month 30 days
//     and a day 24 hours (interval_compare(x, y) against 0: '1 month' = '30 days');
//   - greatest and least of intervals (the first of equal ones, as PostgreSQL; of mixed types
//     widened to interval_month_day_nano, WidenMixedIntervals);
//   - interval ± interval, -interval and interval × integer (either side): part by part, each in
//     its storage's checked arithmetic (months and days 32-bit, nanoseconds 64-bit; an overflow
//     is an error in its row), interval_from_parts(months, days, nanos): an
//     interval_month_day_nano whatever the operands' interval types.
// Division and multiplication by a fraction are refused (PostgreSQL spills their fractions of
// months into days by 30-day months, a rule this does not copy). nullopt when `function` is none
// of these or no argument is an interval.
Result<std::optional<ExprPtr>> BindIntervalCall(std::string_view function, std::span<const ExprPtr> args, FoldFn fold);
// The interval types among `args` (unbound entries, null literals and other arguments skipped):
// none, one (written to `*one` when given), or more than one.
enum class IntervalMix { kNone, kOne, kMixed };
IntervalMix IntervalTypesOf(std::span<const ExprPtr> args, DataType* one = nullptr);
// The arguments args[from..] of coalesce, if (its branches), greatest or least when they hold
// intervals of more than one type: each interval widened to interval_month_day_nano, as
// cast(x, interval_month_day_nano) widens it (lossless), and each null literal made one of that
// type, so that the call returns an interval_month_day_nano, as + and - of mixed intervals do.
// False, and nothing changed, when the intervals share one type, there are none, or an argument
// is neither an interval nor a null literal.
bool WidenMixedIntervals(std::span<ExprPtr> args, size_t from, FoldFn fold);
// An interval written as text (ParseIntervalLiteral's grammar) as a value of the duration type
// `type`: a fixed length, so no months, and a whole number of the duration's unit; otherwise a
// type error.
Result<Scalar> ParseDurationLiteral(std::string_view text, const DataType& type);

}  // namespace rowjit::ir
