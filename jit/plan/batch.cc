// A batch read for one call (jit layer, plan room): jit/plan/batch.h.
#include "jit/plan/batch.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>

#include "runtime/builder.h"
#include "kernels/bitmap.h"
#include "runtime/string_array.h"

namespace rowjit::jit::internal {
namespace {

// Row by row through GetScalar: for the rare inputs the kernels do not read directly
// (dictionaries of bools or of values with nulls). Dictionaries of strings (larger than the
// over-dictionary strategy takes) become a flat array in their values' layout, sized exactly
// before it is copied (no Scalar a row).
Result<ArrayPtr> DecodeToFlat(const Array& a) {
  if (a.encoding() == Encoding::kDictionary && IsString(a.type().id)) {
    const Array& values = *static_cast<const DictionaryArray&>(a).values();
    const bool views = values.encoding() == Encoding::kString &&
                       static_cast<const StringArray&>(values).layout() == StringLayout::kViews;
    std::vector<std::optional<std::string_view>> rows(static_cast<size_t>(a.length()));
    int64_t bytes = 0;
    for (int64_t i = 0; i < a.length(); ++i) {
      std::optional<std::string_view>& row = rows[static_cast<size_t>(i)];
      row = StringAt(a, i);
      bytes += row ? static_cast<int64_t>(row->size()) : 0;
    }
    const StringLayout layout = views ? StringLayout::kViews
                                : bytes <= std::numeric_limits<int32_t>::max() ? StringLayout::kOffsets32
                                                                               : StringLayout::kOffsets64;
    ROWJIT_ASSIGN_OR_RETURN(auto flat, MakeStringArray(a.type(), layout, rows));
    return ArrayPtr(std::move(flat));
  }
  std::vector<Scalar> rows;
  rows.reserve(static_cast<size_t>(a.length()));
  for (int64_t i = 0; i < a.length(); ++i) rows.push_back(a.GetScalar(i));
  return MakeArray(a.type(), rows);
}

bool ReadThroughCodes(const DictionaryArray& d) {
  return d.type().id != TypeId::kBool && !IsString(d.type().id) && d.values()->encoding() == Encoding::kPrimitive &&
         d.values()->NullCount() == 0;
}

// The columns as kernels read them: the caller's span, or `normalized` when a referenced column
// had to be decoded (a dictionary they cannot read, values not aligned to their width).
Status Normalize(std::span<const ArrayPtr> columns, const std::vector<int>& refs, Batch& batch) {
  batch.columns = columns;
  for (int c : refs) {
    if (!NeedsDecoding(*columns[c])) continue;
    if (batch.normalized.empty()) batch.normalized.assign(columns.begin(), columns.end());
    ROWJIT_ASSIGN_OR_RETURN(batch.normalized[c], DecodeToFlat(*columns[c]));
  }
  if (!batch.normalized.empty()) batch.columns = batch.normalized;
  return Status::OK();
}

}  // namespace

Result<Batch> ReadBatch(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                        void* rows_into, bool defer_rows) {
  const ir::ExprFacts& f = expr.facts();
  Batch batch;
  ROWJIT_RETURN_NOT_OK(Normalize(columns, f.columns, batch));
  batch.facts.length = length;
  batch.facts.inputs.resize(columns.size());
  bool any_nulls = false;
  for (int c : f.columns) {
    batch.facts.inputs[c] = ir::DescribeInput(*batch.columns[c]);
    any_nulls = any_nulls || batch.facts.inputs[c].has_nulls;
  }
  ROWJIT_RETURN_NOT_OK(ReadRows(expr, any_nulls, batch, rows_into, defer_rows));
  return batch;
}

Status ReadRows(const ir::Expr& expr, bool any_nulls, Batch& batch, void* rows_into, bool defer_rows) {
  const ir::ExprFacts& f = expr.facts();
  if (!f.StrictRows() || !any_nulls) return Status::OK();
  std::vector<Validity> vs;
  for (int c : f.columns) vs.push_back(ValidityOf(*batch.columns[c]));
  if (defer_rows) {
    const bool all_null = std::any_of(vs.begin(), vs.end(), [](const Validity& v) { return v.all_null(); });
    batch.facts.rows = all_null ? BatchFacts::Rows::kAllNull : BatchFacts::Rows::kSomeNull;
    return Status::OK();
  }
  BufferPtr into = rows_into ? Buffer::Lend(rows_into, kernels::NumWords(batch.facts.length) * 8) : nullptr;
  ROWJIT_ASSIGN_OR_RETURN(batch.rows, AndValidity(vs, batch.facts.length, std::move(into)));
  if (batch.rows.all_null()) {
    batch.facts.rows = BatchFacts::Rows::kAllNull;
  } else if (!batch.rows.all_valid()) {
    batch.facts.rows = BatchFacts::Rows::kSomeNull;
  }
  return Status::OK();
}

BatchFacts ValidOnlyFacts(const ir::Expr& expr, const Batch& batch) {
  BatchFacts facts = batch.facts;
  if (facts.inputs.size() != batch.columns.size()) {  // a prepared handle's read: rows only
    facts.inputs.assign(batch.columns.size(), ir::InputSpec{});
    for (int c : expr.facts().columns) facts.inputs[c] = ir::DescribeInput(*batch.columns[c]);
  }
  facts.prefer_valid_only = true;
  facts.surviving = facts.length == 0 ? 0.0
                                      : static_cast<double>(batch.rows.CountValid(facts.length)) /
                                            static_cast<double>(facts.length);
  return facts;
}

bool NeedsDecoding(const Array& a) {
  if (a.encoding() == Encoding::kDictionary) return !ReadThroughCodes(static_cast<const DictionaryArray&>(a));
  if (a.encoding() != Encoding::kPrimitive) return false;
  const auto& p = static_cast<const PrimitiveArray&>(a);
  const auto width = static_cast<uintptr_t>(ByteWidth(p.type().id));  // a power of two: no division
  return (reinterpret_cast<uintptr_t>(p.raw_values()) & (width - 1)) != 0;
}

}  // namespace rowjit::jit::internal
