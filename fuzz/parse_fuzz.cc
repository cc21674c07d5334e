// Fuzz target: parse -> bind -> print -> parse round trip (fuzz). Any text is parsed (an error is
// fine); what parses prints canonically: printing, reparsing and printing again gives the same
// text and an equal expression, bound or not. The same text is also read as an aggregate query
// (ir/query.h): one that binds prints a text that binds to an equal query. A crash or a mismatch
// is a finding.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ir/binder.h"
#include "ir/parser.h"
#include "ir/query.h"

namespace {

using rowjit::Schema;
using rowjit::ir::ExprPtr;

// Small limits keep each input fast; the depth is still past what a naive recursion survives
// in a fuzzer's thread.
const rowjit::ir::Limits kLimits{.max_depth = 2'000, .max_nodes = 20'000};

[[noreturn]] void Fail(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "parse fuzz: %s\n  first:  %s\n  second: %s\n", what, a.c_str(), b.c_str());
  std::abort();
}

// print(parse(print(e))) == print(e) and the reparsed expression equals e.
void CheckRoundTrip(const ExprPtr& e, const Schema* schema) {
  const std::string text = e->ToString();
  auto again = rowjit::ir::Parse(text, kLimits);
  if (!again.ok()) Fail("printed text does not parse", text, again.error().ToString());
  ExprPtr reparsed = *again;
  if (schema != nullptr) {
    auto bound = rowjit::ir::Bind(reparsed, *schema, kLimits);
    if (!bound.ok()) Fail("printed bound text does not bind", text, bound.error().ToString());
    reparsed = *bound;
  }
  if (reparsed->ToString() != text) Fail("printing is not canonical", text, reparsed->ToString());
  if (!reparsed->Equals(*e)) Fail("reparsed expression differs", text, reparsed->ToString());
}

void CheckQuery(const std::string& text, const Schema& schema) {
  const rowjit::ir::BindOptions options{.limits = kLimits};
  auto query = rowjit::ir::ParseAndBindQuery(text, schema, options);
  if (!query.ok()) {
    const auto& span = query.error().span();
    if (span && span->offset + span->length > text.size()) Fail("error span outside the text", text, query.error().ToString());
    return;
  }
  const std::string printed = query->ToString();
  auto again = rowjit::ir::ParseAndBindQuery(printed, schema, options);
  if (!again.ok()) Fail("printed query does not bind", printed, again.error().ToString());
  if (again->ToString() != printed || again->hash() != query->hash()) Fail("query printing is not canonical", printed, again->ToString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Schema schema =
      *rowjit::ParseSchema("a:i32?, b:i64, c:f64?, d:bool, e:u8?, f:i8, g:f32, h:u64?, l:list<i32?>?, "
                           "m:map<utf8, i64?>, s:struct<x:i32, t:utf8?>?");
  const std::string text(reinterpret_cast<const char*>(data), size);
  CheckQuery(text, schema);
  auto parsed = rowjit::ir::Parse(text, kLimits);
  if (!parsed.ok()) return 0;
  CheckRoundTrip(*parsed, nullptr);
  auto bound = rowjit::ir::Bind(*parsed, schema, kLimits);
  if (bound.ok()) CheckRoundTrip(*bound, &schema);
  return 0;
}
