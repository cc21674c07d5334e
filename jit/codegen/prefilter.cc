// Word-level work of string predicates (jit layer, codegen room).
#include "jit/codegen/prefilter.h"

#include <algorithm>

#include "ir/analysis.h"
#include "ir/function.h"
#include "kernels/strings.h"
#include "runtime/string_array.h"

namespace rowjit::jit::internal {

std::optional<LengthTest> EqualityLengthTest(const ir::Expr& call) {
  if (!call.is_call() || call.args().size() != 2) return std::nullopt;
  const ir::ImpliedLength implied = call.function()->implied_length;
  const bool eq = implied == ir::ImpliedLength::kEquals, like = implied == ir::ImpliedLength::kLike;
  if (!eq && !like) return std::nullopt;
  for (size_t side : {size_t{0}, size_t{1}}) {
    const ir::Expr& col = *call.args()[side];
    const ir::Expr& lit = *call.args()[1 - side];
    if (!col.is_column() || !IsString(col.type().id) || !lit.is_literal() || lit.value().is_null()) continue;
    if (like && side != 0) return std::nullopt;  // the pattern is the second argument
    const std::string_view text = lit.value().str();
    if (like && text.find_first_of("%_\\") != std::string_view::npos) return std::nullopt;
    return LengthTest{&col, static_cast<int64_t>(text.size())};
  }
  return std::nullopt;
}

std::optional<LengthSet> InListLengths(const ir::Expr& call) {
  if (!call.is_call() || !call.function()->literal_set || call.args().size() < 2) return std::nullopt;
  const ir::Expr& col = *call.args()[0];
  if (!col.is_column() || !IsString(col.type().id)) return std::nullopt;
  LengthSet out{&col, {}};
  for (size_t i = 1; i < call.args().size(); ++i) {
    const ir::Expr& lit = *call.args()[i];
    if (!lit.is_literal() || lit.value().is_null()) return std::nullopt;
    const auto n = static_cast<int64_t>(lit.value().str().size());
    if (std::find(out.lengths.begin(), out.lengths.end(), n) != out.lengths.end()) continue;
    if (out.lengths.size() == kInListPrefilterLengths) return std::nullopt;
    out.lengths.push_back(n);
  }
  return out;
}

namespace {

bool ReadsRowBytes(const LengthTest& t, std::span<const ir::InputSpec> specs) {
  const auto c = static_cast<size_t>(t.column->column_index());
  if (c >= specs.size() || specs[c].shape != ir::InputShape::kFlat) return false;
  return specs[c].layout != StringLayout::kViews || t.length > kViewInlineMax;
}

bool Prefiltered(const ir::Expr& e, std::span<const ir::InputSpec> specs) {
  if (std::optional<LengthTest> t = EqualityLengthTest(e)) return ReadsRowBytes(*t, specs);
  if (std::optional<LengthSet> set = InListLengths(e)) {
    for (int64_t n : set->lengths) {
      if (!ReadsRowBytes(LengthTest{set->column, n}, specs)) return false;
    }
    return true;
  }
  if (!e.is_call() || e.args().size() != 2) return false;
  switch (e.function()->guard) {
    case ir::Guard::kAnd: return Prefiltered(*e.args()[0], specs) || Prefiltered(*e.args()[1], specs);
    case ir::Guard::kOr: return Prefiltered(*e.args()[0], specs) && Prefiltered(*e.args()[1], specs);
    default: return false;
  }
}

}  // namespace

bool UsesLengthPrefilter(const ir::Expr& e, std::span<const ir::InputSpec> specs) {
  return e.type().id == TypeId::kBool && e.is_call() && !e.facts().can_fail && Prefiltered(e, specs);
}

LikePlan PlanLike(std::string_view pattern, bool utf8) {
  LikePlan plan;
  plan.pieces.emplace_back();
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char ch = pattern[i];
    if (ch == '_') return plan;  // a character step: the general matcher
    if (ch == '%') {
      if (!plan.pieces.back().empty() || plan.pieces.size() == 1) plan.pieces.emplace_back();
      continue;
    }
    if (static_cast<uint8_t>(ch) == kernels::kLikeEscape && i + 1 < pattern.size()) ++i;
    plan.pieces.back() += pattern[i];
  }
  // pieces: first (anchored at the start), middle ones (searched), last (anchored at the end).
  plan.simple = plan.pieces.size() <= 3 && (plan.pieces.size() < 3 || (plan.pieces[0].empty() && plan.pieces[2].empty()));
  // Over utf8 a `%` swallows whole characters: a piece after one matches bytewise only where it
  // starts a character, as every byte but a continuation byte (10xxxxxx) does.
  for (size_t i = 1; utf8 && i < plan.pieces.size(); ++i) {
    if (!plan.pieces[i].empty() && (static_cast<uint8_t>(plan.pieces[i][0]) & 0xc0) == 0x80) plan.simple = false;
  }
  return plan;
}

std::optional<WordSearch> WordSearchOf(const ir::Expr& call, std::span<const ir::InputSpec> specs) {
  if (!call.is_call() || call.args().size() != 2) return std::nullopt;
  const ir::Expr& col = *call.args()[0];
  const ir::Expr& lit = *call.args()[1];
  if (!col.is_column() || !IsString(col.type().id) || !lit.is_literal() || lit.value().is_null()) return std::nullopt;
  const auto c = static_cast<size_t>(col.column_index());
  if (c >= specs.size() || specs[c].shape != ir::InputShape::kFlat) return std::nullopt;
  const std::string_view name = call.name();
  WordSearch out{&col, std::string(lit.value().str()), name == "ilike"};
  if (name == "like" || name == "ilike") {
    const LikePlan plan = PlanLike(out.needle, col.type().id == TypeId::kUtf8);
    if (!plan.simple || plan.pieces.size() != 3) return std::nullopt;
    out.needle = plan.pieces[1];
  } else if (name != "contains") {
    return std::nullopt;
  }
  if (out.needle.empty()) return std::nullopt;
  if (out.fold_case) out.needle = kernels::AsciiLower(out.needle);
  return out;
}

const ir::Expr* WordCodePointsOf(const ir::Expr& call, std::span<const ir::InputSpec> specs) {
  if (!call.is_call() || !call.function()->counts_code_points || call.args().size() != 1) return nullptr;
  const ir::Expr& col = *call.args()[0];
  if (!col.is_column() || !IsString(col.type().id)) return nullptr;
  const auto c = static_cast<size_t>(col.column_index());
  if (c >= specs.size() || specs[c].shape != ir::InputShape::kFlat) return nullptr;
  return &col;
}

bool UsesWordSearch(const ir::Expr& e, std::span<const ir::InputSpec> specs) {
  if (WordSearchOf(e, specs) || WordCodePointsOf(e, specs)) return true;
  return std::any_of(e.args().begin(), e.args().end(), [&](const ir::ExprPtr& a) { return UsesWordSearch(*a, specs); });
}

}  // namespace rowjit::jit::internal
