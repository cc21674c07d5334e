// The executor's inputs (jit layer, exec room): a batch read once, and the kernel inputs of one
// run: pointers into the arrays, word-aligned bit copies where a bitmap is not, padded tails, and
// the compacted rows a valid-only run reads.
#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>

#include "jit/exec/executor_internal.h"

#include "kernels/filter.h"
#include "ir/reference.h"
#include "runtime/builder.h"
#include "runtime/deep_stack.h"
#include "runtime/string_array.h"

namespace rowjit::jit::internal {
namespace {

// 64-bit words of bits starting at a bit offset: shared when byte-aligned, copied to offset 0
// otherwise. Kernels read the whole words in place; the partial last word only TailInputs reads,
// byte by byte up to the bitmap's last byte, so a shared bitmap need not be padded to a word.
Result<const uint64_t*> WordBits(const BufferPtr& buf, int64_t bit_offset, int64_t length,
                                 std::vector<BufferPtr>& keep) {
  const int64_t words = kernels::NumWords(length);
  if (bit_offset % 8 == 0 && buf->readable_size() >= bit_offset / 8 + kernels::NumBytes(length)) {
    return reinterpret_cast<const uint64_t*>(buf->data() + bit_offset / 8);
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::Allocate(words * 8));
  kernels::BitmapCopy({buf->data(), bit_offset, length}, copy->mutable_data());
  keep.push_back(copy);
  return reinterpret_cast<const uint64_t*>(copy->data());
}

// A flat string input: offsets (row 0's) and the data; or the views and a table of the data
// buffers' addresses, never empty (kernels read entry 0 for inline rows, then ignore it).
Status PointAtStrings(const StringArray& s, KernelInput& in, std::vector<BufferPtr>& keep) {
  if (s.layout() != StringLayout::kViews) {
    in.values = s.raw_offsets();
    in.codes = s.data();
    return Status::OK();
  }
  static const uint8_t kNoBytes[8] = {};
  const size_t n = std::max<size_t>(s.data_buffers().size(), 1);
  ROWJIT_ASSIGN_OR_RETURN(auto table, Buffer::Allocate(static_cast<int64_t>(n * sizeof(void*))));
  auto* entries = reinterpret_cast<const uint8_t**>(table->mutable_data());
  for (size_t i = 0; i < n; ++i) {
    const bool has = i < s.data_buffers().size() && s.data_buffers()[i] != nullptr;
    entries[i] = has ? s.data_buffers()[i]->data() : kNoBytes;
  }
  in.values = s.raw_views();
  in.codes = table->data();
  keep.push_back(std::move(table));
  return Status::OK();
}

// A kernel input's pointers for one array.
Status PointAt(const Array& a, int64_t length, KernelInput& in, std::vector<BufferPtr>& keep) {
  switch (a.encoding()) {
    case Encoding::kString:
      return PointAtStrings(static_cast<const StringArray&>(a), in, keep);
    case Encoding::kPrimitive:
      in.values = static_cast<const PrimitiveArray&>(a).raw_values();
      break;
    case Encoding::kFixedList:  // read by vector kernels only (ScoreVectors), not through batches
      in.values = static_cast<const FixedListArray&>(a).raw_values();
      break;
    case Encoding::kStruct:  // read through its fields' columns (struct_field), never by a kernel
    case Encoding::kList:    // read by the list functions' column forms (ir/list_functions.h)
      break;
    case Encoding::kBool: {
      const auto& b = static_cast<const BoolArray&>(a);
      ROWJIT_ASSIGN_OR_RETURN(in.values, WordBits(b.bits_buffer(), b.offset(), length, keep));
      break;
    }
    case Encoding::kByteBool:
      in.values = static_cast<const ByteBoolArray&>(a).bytes();
      break;
    case Encoding::kConstant: {
      const Scalar& value = static_cast<const ConstantArray&>(a).value();
      in.scalar = value.bits();
      if (IsString(value.type_id())) {  // the bytes (owned by the array's scalar) and the length
        in.values = value.str().data();
        in.scalar = value.str().size();
      }
      if (value.type_id() == TypeId::kI128) {  // both halves, low first (jit/codegen/kernel_builder.cc)
        ROWJIT_ASSIGN_OR_RETURN(BufferPtr halves, Buffer::Allocate(16));
        const auto v = static_cast<unsigned __int128>(value.int128());
        const uint64_t words[2] = {static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64)};
        std::memcpy(halves->mutable_data(), words, 16);
        in.values = halves->data();
        keep.push_back(std::move(halves));
      }
      break;
    }
    case Encoding::kDictionary: {
      const auto& d = static_cast<const DictionaryArray&>(a);
      in.values = static_cast<const PrimitiveArray&>(*d.values()).raw_values();
      in.codes = d.codes()->raw_values();
      in.scalar = static_cast<uint64_t>(d.values()->length());
      break;
    }
  }
  return Status::OK();
}

// Validity words for a kernel that reads them: the array's bitmap, or zeros for an all-null one.
Status PointAtValidity(const Array& a, int64_t length, KernelInput& in, std::vector<BufferPtr>& keep) {
  const Validity v = ValidityOf(a);
  if (v.has_bitmap()) {
    ROWJIT_ASSIGN_OR_RETURN(in.valid, WordBits(v.bitmap(), v.bit_offset(), length, keep));
  } else if (v.all_null() && a.encoding() != Encoding::kConstant) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr zeros, Buffer::Allocate(kernels::NumWords(length) * 8));
    keep.push_back(zeros);
    in.valid = reinterpret_cast<const uint64_t*>(zeros->data());
  }
  return Status::OK();
}

// Whether `actual` (an input as the batch presents it) is what the kernel was specialized for:
// the same shape and types, and no nulls where the key says none are read.
[[maybe_unused]] bool Matches(const ir::InputSpec& actual, const ir::InputSpec& key, bool reads_validity) {
  return actual.shape == key.shape && actual.type == key.type &&
         (actual.shape != ir::InputShape::kDictionary || actual.code_type == key.code_type) &&
         (actual.has_nulls == key.has_nulls || !reads_validity);
}

}  // namespace

namespace {

// The rows of a string input from `base` on, `tail` of them, as 64 rows in `dst`: offsets end
// with empty strings (the last offset repeated), views with empty inline views. Padding rows
// read no bytes. Only for kernels where no call that can fail reads a string (an empty string
// fails a parse): those repeat the last row instead (RepeatLastString).
const void* PadStrings(const KernelInput& in, StringLayout layout, int64_t base, int64_t tail, uint8_t* dst) {
  if (layout == StringLayout::kViews) {
    std::memset(dst, 0, 64 * kViewBytes);
    std::memcpy(dst, static_cast<const uint8_t*>(in.values) + base * kViewBytes, static_cast<size_t>(tail * kViewBytes));
    return dst;
  }
  const size_t w = layout == StringLayout::kOffsets32 ? 4 : 8;
  const auto* from = static_cast<const uint8_t*>(in.values) + base * static_cast<int64_t>(w);
  std::memcpy(dst, from, (static_cast<size_t>(tail) + 1) * w);
  for (size_t r = static_cast<size_t>(tail) + 1; r <= 64; ++r) std::memcpy(dst + r * w, from + tail * w, w);
  return dst;
}

template <typename O>
void RepeatOffsets(KernelInput& in, int64_t base, int64_t tail, uint8_t* dst, std::vector<uint8_t>& bytes) {
  const O* off = static_cast<const O*>(in.values) + base;
  const auto first = static_cast<int64_t>(off[0]), last = static_cast<int64_t>(off[tail - 1]),
             end = static_cast<int64_t>(off[tail]);
  const int64_t len = end - last, total = end - first + (64 - tail) * len;
  if (total > std::numeric_limits<O>::max()) {
    // More bytes than offsets of this width address: empty padding rows, where a parse of ''
    // fails (a clear internal error, never a wrong answer).
    in.values = PadStrings(in, sizeof(O) == 4 ? StringLayout::kOffsets32 : StringLayout::kOffsets64, base, tail, dst);
    return;
  }
  const auto* data = static_cast<const uint8_t*>(in.codes);
  bytes.resize(static_cast<size_t>(std::max<int64_t>(total, 1)));
  if (end > first) std::memcpy(bytes.data(), data + first, static_cast<size_t>(end - first));
  O* out = reinterpret_cast<O*>(dst);
  for (int64_t r = 0; r <= tail; ++r) out[r] = static_cast<O>(off[r] - off[0]);
  for (int64_t r = tail + 1; r <= 64; ++r) {
    out[r] = static_cast<O>(out[r - 1] + len);
    if (len > 0) std::memcpy(bytes.data() + out[r - 1], data + last, static_cast<size_t>(len));
  }
  in.values = dst;
  in.codes = bytes.data();
}

// As PadStrings, but every padding row repeats the last row: a failing call over strings (a
// parse) fails in the padding only where the last row fails. Offsets are rebased over a copy of
// the tail's bytes followed by the last row's bytes once per padding row.
void RepeatLastString(KernelInput& in, StringLayout layout, int64_t base, int64_t tail, uint8_t* dst,
                      std::vector<uint8_t>& bytes) {
  if (layout == StringLayout::kViews) {
    const uint8_t* from = static_cast<const uint8_t*>(in.values) + base * kViewBytes;
    std::memcpy(dst, from, static_cast<size_t>(tail * kViewBytes));
    for (int64_t r = tail; r < 64; ++r) std::memcpy(dst + r * kViewBytes, from + (tail - 1) * kViewBytes, kViewBytes);
    in.values = dst;
  } else if (layout == StringLayout::kOffsets32) {
    RepeatOffsets<int32_t>(in, base, tail, dst, bytes);
  } else {
    RepeatOffsets<int64_t>(in, base, tail, dst, bytes);
  }
}

// The kept rows of a string input, compacted into `dst`: views copied as they are (they point
// into the same buffers); offsets rebuilt over a copy of the kept bytes in `bytes`.
Status CompactStrings(const KernelInput& in, StringLayout layout, int64_t start, kernels::BitSpan mask,
                      int64_t kept, BufferPtr& dst_buf, BufferPtr& bytes_buf, KernelInput& out);

}  // namespace

Result<PreparedInputs> PrepareInputs(std::span<const ArrayPtr> columns, const std::vector<int>& refs,
                                     int64_t length, const CacheKey& key) {
  // Word loops and folds (row folds over inputs with nulls read validity words too).
  const bool reads_validity =
      (key.shape.loop == KernelLoop::kWords || key.shape.fold) && key.shape.reads_lane_validity();
  PreparedInputs p;
  p.inputs.resize(columns.size());
  p.specs = key.spec.inputs;
  p.repeat_last_string = key.spec.expr->facts().string_evidence;
  for (int c : refs) {
    const Array& a = *columns[c];
    KernelInput& in = p.inputs[c];
    assert(Matches(ir::DescribeInput(a), p.specs[c], reads_validity) &&
           "the batch is not what the planned kernel was specialized for");
    ROWJIT_RETURN_NOT_OK(PointAt(a, length, in, p.keep));
    if (reads_validity && p.specs[c].has_nulls) {
      ROWJIT_RETURN_NOT_OK(PointAtValidity(a, length, in, p.keep));
    }
  }
  return p;
}

namespace {

// The partial last word of words of bits (WordBits): its bytes up to the last one holding a row.
uint64_t LoadTailWord(const void* words, int64_t full, int64_t tail) {
  uint64_t word = 0;
  std::memcpy(&word, static_cast<const uint8_t*>(words) + full * 8, static_cast<size_t>(kernels::NumBytes(tail)));
  return word;
}

// Repeats bit `tail - 1` of `word` into the bits above it.
uint64_t PadWord(uint64_t word, int64_t tail) {
  const uint64_t keep = kernels::LowBits(tail);
  return (word & keep) | (((word >> (tail - 1)) & 1) ? ~keep : 0);
}

struct Row16 {  // a decimal128 row
  uint64_t low, high;
};

// All 64 rows of `dst` set to `value`: a fixed count of stores.
template <typename U>
void FillRows(uint8_t* dst, const uint8_t* value) {
  U v;
  std::memcpy(&v, value, sizeof(U));
  U* rows = reinterpret_cast<U*>(dst);  // aligned to U: scratch rows are 1024-byte blocks
  for (int r = 0; r < 64; ++r) rows[r] = v;
}

// 64 rows of `width` bytes into `dst`: rows [base, base + tail) of `src`, then the last of them
// repeated (every row set to the last one, then the others copied over).
const void* PadRows(const void* src, int width, int64_t base, int64_t tail, uint8_t* dst) {
  const auto* from = static_cast<const uint8_t*>(src) + base * width;
  const uint8_t* last = from + (tail - 1) * width;
  switch (width) {
    case 1: FillRows<uint8_t>(dst, last); break;
    case 2: FillRows<uint16_t>(dst, last); break;
    case 4: FillRows<uint32_t>(dst, last); break;
    case 8: FillRows<uint64_t>(dst, last); break;
    default: assert(width == 16 && "element widths are 1, 2, 4, 8 or 16 bytes"); FillRows<Row16>(dst, last);
  }
  std::memcpy(dst, from, static_cast<size_t>((tail - 1) * width));
  return dst;
}

}  // namespace

uint8_t* TailInputs::RowsOf(size_t k) {
  return (rows_.empty() ? inline_rows_ : rows_.data()) + k * kRowBytes;
}

uint64_t* TailInputs::WordsOf(size_t k) { return (words_.empty() ? inline_words_ : words_.data()) + 2 * k; }

TailInputs::TailInputs(const InputsView& p, const std::vector<int>& refs, int64_t n) {
  if (p.inputs.size() > kInline) inputs_.assign(p.inputs.begin(), p.inputs.end());
  else std::copy(p.inputs.begin(), p.inputs.end(), inline_inputs_);
  if (refs.size() > kInline) {
    rows_.resize(refs.size() * kRowBytes);
    words_.resize(refs.size() * 2);
  }
  KernelInput* inputs = inputs_.empty() ? inline_inputs_ : inputs_.data();
  const int64_t full = n / 64, tail = n % 64, base = full * 64;
  for (size_t k = 0; k < refs.size(); ++k) {
    const int c = refs[k];
    KernelInput& in = inputs[c];
    const ir::InputSpec& spec = p.specs[c];
    uint64_t* words = WordsOf(k);
    switch (spec.shape) {
      case ir::InputShape::kFlat:
        if (IsString(spec.type) && p.repeat_last_string) {
          RepeatLastString(in, spec.layout, base, tail, RowsOf(k), bytes_.emplace_back());
        } else if (IsString(spec.type)) {
          in.values = PadStrings(in, spec.layout, base, tail, RowsOf(k));
        } else if (spec.type == TypeId::kBool) {
          // Word pointers may sit at any byte (Arrow bitmaps): load them as bytes.
          words[0] = PadWord(LoadTailWord(in.values, full, tail), tail);
          in.values = &words[0];
        } else {
          in.values = PadRows(in.values, ByteWidth(spec.type), base, tail, RowsOf(k));
        }
        break;
      case ir::InputShape::kByteBool:
        in.values = PadRows(in.values, 1, base, tail, RowsOf(k));
        break;
      case ir::InputShape::kDictionary:
        in.codes = PadRows(in.codes, ByteWidth(spec.code_type), base, tail, RowsOf(k));
        break;
      default:
        break;
    }
    if (in.valid != nullptr) {
      words[1] = PadWord(LoadTailWord(in.valid, full, tail), tail);
      in.valid = &words[1];
    }
  }
}

namespace {

// A scratch buffer of at least `bytes`, reused when the one it holds is large enough.
Result<uint8_t*> Scratch(BufferPtr& buf, int64_t bytes) {
  if (buf == nullptr || buf->size() < bytes) {
    ROWJIT_ASSIGN_OR_RETURN(buf, Buffer::AllocateForOverwrite(std::max<int64_t>(bytes, 64)));
  }
  return buf->mutable_data();
}

}  // namespace

Result<std::vector<KernelInput>> CompactInputs(const PreparedInputs& p, const std::vector<int>& refs,
                                               int64_t start, kernels::BitSpan mask, int64_t kept,
                                               std::vector<BufferPtr>& scratch) {
  std::vector<KernelInput> out = p.inputs;
  scratch.resize(p.inputs.size());
  for (int c : refs) {
    const ir::InputSpec& spec = p.specs[c];
    const auto* values = static_cast<const uint8_t*>(p.inputs[c].values);
    switch (spec.shape) {
      case ir::InputShape::kFlat: {
        if (IsString(spec.type)) {
          scratch.resize(2 * p.inputs.size());
          ROWJIT_RETURN_NOT_OK(CompactStrings(p.inputs[c], spec.layout, start, mask, kept, scratch[c],
                                              scratch[p.inputs.size() + c], out[c]));
          break;
        }
        const bool bits = spec.type == TypeId::kBool;
        const int w = bits ? 0 : ByteWidth(spec.type);
        ROWJIT_ASSIGN_OR_RETURN(uint8_t* dst, Scratch(scratch[c], bits ? kernels::NumWords(kept) * 8 : kept * w));
        if (bits) {
          kernels::FilterBits({values, start, mask.length}, mask, dst);
        } else if (w == 16) {  // decimal128: no filter kernel has 16-byte rows; kept rows copied in turn
          int64_t k = 0;
          for (int64_t i = 0; i < mask.length; ++i) {
            if (kernels::GetBit(mask.data, mask.offset + i)) std::memcpy(dst + 16 * k++, values + (start + i) * 16, 16);
          }
        } else {
          kernels::Filter(values + start * w, mask, w, dst);
        }
        out[c].values = dst;
        break;
      }
      case ir::InputShape::kByteBool: {
        ROWJIT_ASSIGN_OR_RETURN(uint8_t* dst, Scratch(scratch[c], kept));
        kernels::Filter(values + start, mask, 1, dst);
        out[c].values = dst;
        break;
      }
      case ir::InputShape::kDictionary: {
        const int w = ByteWidth(spec.code_type);
        ROWJIT_ASSIGN_OR_RETURN(uint8_t* dst, Scratch(scratch[c], kept * w));
        kernels::Filter(static_cast<const uint8_t*>(p.inputs[c].codes) + start * w, mask, w, dst);
        out[c].codes = dst;
        break;
      }
      case ir::InputShape::kConstant:
      case ir::InputShape::kNullConstant:
        break;
    }
  }
  return out;
}

namespace {

Status CompactStrings(const KernelInput& in, StringLayout layout, int64_t start, kernels::BitSpan mask,
                      int64_t kept, BufferPtr& dst_buf, BufferPtr& bytes_buf, KernelInput& out) {
  if (layout == StringLayout::kViews) {
    ROWJIT_ASSIGN_OR_RETURN(uint8_t* dst, Scratch(dst_buf, kept * kViewBytes));
    const auto* views = static_cast<const uint8_t*>(in.values) + start * kViewBytes;
    for (int64_t r = 0, at = 0; r < mask.length; ++r) {
      if (kernels::GetBit(mask.data, mask.offset + r)) std::memcpy(dst + at++ * kViewBytes, views + r * kViewBytes, kViewBytes);
    }
    out.values = dst;
    return Status::OK();
  }
  const bool narrow = layout == StringLayout::kOffsets32;
  const auto offset = [&](int64_t r) -> int64_t {
    if (narrow) {
      int32_t v;
      std::memcpy(&v, static_cast<const uint8_t*>(in.values) + r * 4, 4);
      return v;
    }
    int64_t v;
    std::memcpy(&v, static_cast<const uint8_t*>(in.values) + r * 8, 8);
    return v;
  };
  int64_t bytes = 0;
  for (int64_t r = 0; r < mask.length; ++r) {
    if (kernels::GetBit(mask.data, mask.offset + r)) bytes += offset(start + r + 1) - offset(start + r);
  }
  const int64_t w = narrow ? 4 : 8;
  ROWJIT_ASSIGN_OR_RETURN(uint8_t* offsets, Scratch(dst_buf, (kept + 1) * w));
  ROWJIT_ASSIGN_OR_RETURN(uint8_t* data, Scratch(bytes_buf, bytes));
  int64_t at = 0, row = 0;
  const auto* from = static_cast<const uint8_t*>(in.codes);
  for (int64_t r = 0; r < mask.length; ++r) {
    if (!kernels::GetBit(mask.data, mask.offset + r)) continue;
    const int64_t s = offset(start + r), n = offset(start + r + 1) - s;
    std::memcpy(offsets + row++ * w, &at, static_cast<size_t>(w));  // little-endian: low bytes
    std::memcpy(data + at, from + s, static_cast<size_t>(n));
    at += n;
  }
  std::memcpy(offsets + row * w, &at, static_cast<size_t>(w));
  out.values = offsets;
  out.codes = data;
  return Status::OK();
}

}  // namespace

uint64_t RunRows(RowKernelFn fn, const KernelShape& shape, const InputsView& p, const std::vector<int>& refs,
                 int64_t n, int row_bytes, uint8_t* out_values, uint64_t* out_valid) {
  if (shape.short_batch) {
    assert(n < 64 && "a short batch's kernel runs fewer than 64 rows");
    return fn(p.inputs.data(), out_values, out_valid, 0, n);
  }
  const int64_t full = n / 64, tail = n % 64;
  uint64_t evidence = full > 0 ? fn(p.inputs.data(), out_values, out_valid, full, 0) : 0;
  if (tail == 0) return evidence;
  TailInputs last(p, refs, n);
  alignas(64) uint8_t values[64 * 16];  // the widest row: 16 bytes (decimal128)
  uint64_t valid = 0;
  evidence |= fn(last.data(), values, out_valid ? &valid : nullptr, 1, 0);
  if (row_bytes == 0) {
    uint64_t bits;
    std::memcpy(&bits, values, 8);
    bits &= kernels::LowBits(tail);
    std::memcpy(out_values + full * 8, &bits, 8);
  } else {
    std::memcpy(out_values + full * 64 * row_bytes, values, static_cast<size_t>(tail * row_bytes));
  }
  if (out_valid != nullptr) out_valid[full] = valid & kernels::LowBits(tail);
  return evidence;
}

Error Locate(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length) {
  // One stack for the whole scan (the reference recurses over the expression).
  Status found = WithStackForDepth(expr.facts().depth, [&]() -> Status {
    for (int64_t r = 0; r < length; ++r) {
      auto s = ir::EvaluateRow(expr, columns, r);
      if (!s.ok()) return std::move(s).TakeError();
    }
    return Status::OK();
  });
  if (!found.ok()) return std::move(found).TakeError();
  return MakeError(ErrorCode::kInternal, "kernel reported failure evidence but no row of {} fails",
                   expr.ToString());
}

}  // namespace rowjit::jit::internal
