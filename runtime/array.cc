// Array construction with input checks, slicing, scalars and logical equality (runtime layer).
#include "runtime/array.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/bytebool.h"
#include "runtime/array_internal.h"
#include "runtime/builder.h"
#include "runtime/string_array.h"

namespace rowjit {

int64_t Array::CachedNullCount(const Validity& validity) const {
  int64_t n = null_count_.load(std::memory_order_relaxed);
  if (n < 0) {
    n = length_ - validity.CountValid(length_);
    null_count_.store(n, std::memory_order_relaxed);
  }
  return n;
}

std::string_view EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kPrimitive: return "primitive";
    case Encoding::kBool: return "bool";
    case Encoding::kByteBool: return "byte-bool";
    case Encoding::kConstant: return "constant";
    case Encoding::kDictionary: return "dictionary";
    case Encoding::kString: return "string";
    case Encoding::kFixedList: return "fixed-list";
    case Encoding::kStruct: return "struct";
    case Encoding::kList: return "list";
  }
  return "?";
}

namespace internal {

Status CheckExtent(int64_t offset, int64_t length) {
  if (offset < 0 || length < 0) {
    return MakeError(ErrorCode::kInvalidInput, "negative offset {} or length {}", offset, length);
  }
  if (offset > std::numeric_limits<int64_t>::max() / 16 - length) {
    return MakeError(ErrorCode::kInvalidInput, "offset {} + length {} is too large", offset,
                     length);
  }
  return Status::OK();
}

// A validity given for rows starting at the array's own first row must cover `length` rows; a
// non-nullable type must not have nulls.
Status CheckValidity(const Validity& validity, int64_t length, bool nullable) {
  if (validity.has_bitmap()) {
    if (kernels::NumBytes(validity.bit_offset() + length) > validity.bitmap()->size()) {
      return MakeError(ErrorCode::kInvalidInput,
                       "validity bitmap of {} bytes is shorter than the {} bits it claims",
                       validity.bitmap()->size(), validity.bit_offset() + length);
    }
  }
  if (!nullable && length > 0 && !validity.all_valid() && validity.CountValid(length) != length) {
    return MakeError(ErrorCode::kInvalidInput, "a non-nullable array has null rows");
  }
  return Status::OK();
}

}  // namespace internal

using internal::CheckExtent;
using internal::CheckValidity;

Result<ArrayPtr> Array::Slice(int64_t offset, int64_t length) const {
  if (offset < 0 || length < 0 || offset > length_ || length > length_ - offset) {
    return MakeError(ErrorCode::kInvalidInput, "slice [{}, {}+{}) is outside an array of {} rows",
                     offset, offset, length, length_);
  }
  return SliceUnchecked(offset, length);
}

std::string Array::ToString(int64_t max_rows) const {
  std::string out = "[";
  for (int64_t i = 0; i < length_ && i < max_rows; ++i) {
    if (i) out += ", ";
    Scalar s = GetScalar(i);
    if (s.is_null()) {
      out += "null";
    } else if (IsString(s.type_id())) {
      out += QuoteString(s.str());
    } else if (IsNested(s.type_id()) && s.type_id() != TypeId::kFixedList) {
      out += s.str();  // a nested row's text: {x: 1}, [1, 2], {'k': 1}
    } else {
      std::string text = s.ToString();
      out += text.substr(0, text.find(':'));
    }
  }
  if (length_ > max_rows) out += ", ...";
  return out + "]";
}

// --- FixedListArray ---------------------------------------------------------------------------

Result<std::shared_ptr<const FixedListArray>> FixedListArray::Make(DataType type, int64_t length, BufferPtr values,
                                                                   Validity validity, int64_t offset) {
  if (type.id != TypeId::kFixedList || type.list_size < 1 || !(IsNumeric(type.elem) || IsHalfWidthFloat(type.elem))) {
    return MakeError(ErrorCode::kTypeError, "a fixed-list array holds a fixed_size_list type, not {}", type.ToString());
  }
  ROWJIT_RETURN_NOT_OK(CheckExtent(offset, length));
  if (values == nullptr) return MakeError(ErrorCode::kInvalidInput, "values buffer is null");
  if (offset + length > std::numeric_limits<int64_t>::max() / type.ListRowBytes()) {
    return MakeError(ErrorCode::kInvalidInput, "{} rows of {} are more bytes than a buffer holds", offset + length,
                     type.ToString());
  }
  const int64_t need = (offset + length) * type.ListRowBytes();
  if (values->size() < need) {
    return MakeError(ErrorCode::kInvalidInput,
                     "{} values buffer of {} bytes is shorter than the {} bytes {} rows at offset {} need",
                     type.ToString(), values->size(), need, length, offset);
  }
  ROWJIT_RETURN_NOT_OK(CheckValidity(validity, length, type.nullable));
  return std::make_shared<const FixedListArray>(PrivateTag{}, type, length, std::move(values), std::move(validity),
                                                offset);
}

Scalar FixedListArray::GetScalar(int64_t i) const {
  if (IsNull(i)) {
    Scalar s = Scalar::Null(TypeId::kFixedList);
    return s.As(type());
  }
  return Scalar::Vector(type(), RowBytes(i));
}

ArrayPtr FixedListArray::SliceUnchecked(int64_t offset, int64_t length) const {
  return ArrayPtr(std::make_shared<const FixedListArray>(PrivateTag{}, type(), length, values_,
                                                         validity_.Slice(offset), offset_ + offset));
}

// --- StructArray ------------------------------------------------------------------------------

Result<std::shared_ptr<const StructArray>> StructArray::Make(DataType type, int64_t length, std::vector<ArrayPtr> children,
                                                             Validity validity) {
  const std::vector<StructField>& fields = StructFields(type);
  if (type.id != TypeId::kStruct || fields.empty()) {
    return MakeError(ErrorCode::kTypeError, "a struct array holds a struct type, not {}", type.ToString());
  }
  ROWJIT_RETURN_NOT_OK(CheckExtent(0, length));
  if (children.size() != fields.size()) {
    return MakeError(ErrorCode::kInvalidInput, "{} has {} fields; {} children were given", type.ToString(), fields.size(),
                     children.size());
  }
  for (size_t i = 0; i < children.size(); ++i) {
    const ArrayPtr& c = children[i];
    if (c == nullptr) return MakeError(ErrorCode::kInvalidInput, "the child of field '{}' is null", fields[i].name);
    if (c->length() != length || !c->type().SameType(fields[i].type) || (!fields[i].type.nullable && c->type().nullable)) {
      return MakeError(ErrorCode::kInvalidInput, "field '{}' is {}, its child {} of {} rows (the struct has {})",
                       fields[i].name, fields[i].type.ToString(), c->type().ToString(), c->length(), length);
    }
  }
  ROWJIT_RETURN_NOT_OK(CheckValidity(validity, length, type.nullable));
  return std::make_shared<const StructArray>(PrivateTag{}, type, length, std::move(children), std::move(validity));
}

namespace {

// A nested row's part as text: null, a quoted string, a nested row's text, or a value without
// its type.
std::string PartText(const Scalar& v) {
  if (v.is_null()) return "null";
  if (IsString(v.type_id())) return QuoteString(v.str());
  std::string value = v.ToString();
  const TypeId t = v.type_id();
  if (IsNested(t)) return value;
  return value.substr(0, value.find(':'));
}

}  // namespace

Scalar StructArray::GetScalar(int64_t i) const {
  if (IsNull(i)) return Scalar::Null(TypeId::kStruct).As(type());
  std::string text = "{";
  const std::vector<StructField>& fields = StructFields(type());
  for (size_t f = 0; f < children_.size(); ++f) {
    text += fmt::format("{}{}: {}", f ? ", " : "", fields[f].name, PartText(children_[f]->GetScalar(i)));
  }
  return Scalar::Struct(type(), text + "}");
}

Status StructArray::Validate() const {
  for (const ArrayPtr& c : children_) ROWJIT_RETURN_NOT_OK(c->Validate());
  return Status::OK();
}

ArrayPtr StructArray::SliceUnchecked(int64_t offset, int64_t length) const {
  std::vector<ArrayPtr> children;
  for (const ArrayPtr& c : children_) children.push_back(*c->Slice(offset, length));
  return ArrayPtr(std::make_shared<const StructArray>(PrivateTag{}, type(), length, std::move(children),
                                                      validity_.Slice(offset)));
}

// --- ListArray --------------------------------------------------------------------------------

Result<std::shared_ptr<const ListArray>> ListArray::Make(DataType type, int64_t length, bool large, BufferPtr offsets,
                                                         ArrayPtr elements, Validity validity, int64_t offset) {
  if ((type.id != TypeId::kList && type.id != TypeId::kMap) || type.fields == 0) {
    return MakeError(ErrorCode::kTypeError, "a list array holds a list or map type, not {}", type.ToString());
  }
  ROWJIT_RETURN_NOT_OK(CheckExtent(offset, length));
  if (offsets == nullptr || elements == nullptr) return MakeError(ErrorCode::kInvalidInput, "a list's offsets or elements are null");
  if (large && type.id == TypeId::kMap) return MakeError(ErrorCode::kInvalidInput, "a map's offsets are 32-bit (Arrow's map)");
  const DataType elem = ListElement(type);
  if (!elements->type().SameType(elem) || (!elem.nullable && elements->NullCount() > 0)) {
    return MakeError(ErrorCode::kInvalidInput, "{} holds {} elements, not {}{}", type.ToString(), elem.ToString(),
                     elements->type().ToString(), elements->type().SameType(elem) ? " with nulls" : "");
  }
  const int64_t width = large ? 8 : 4;
  if (offsets->size() / width < offset + length + 1) {
    return MakeError(ErrorCode::kInvalidInput, "{} offsets buffer of {} bytes is shorter than the {} offsets {} rows at offset {} need",
                     type.ToString(), offsets->size(), offset + length + 1, length, offset);
  }
  ROWJIT_RETURN_NOT_OK(CheckValidity(validity, length, type.nullable));
  auto list = std::make_shared<const ListArray>(PrivateTag{}, type, length, large, std::move(offsets), std::move(elements),
                                                std::move(validity), offset);
  int64_t last = list->Start(0);
  if (last < 0) return MakeError(ErrorCode::kInvalidInput, "a list's first offset is negative ({})", last);
  for (int64_t i = 0; i < length; ++i) {
    const int64_t end = list->End(i);
    if (end < last) return MakeError(ErrorCode::kInvalidInput, "a list's offsets decrease at row {} ({} after {})", i, end, last);
    last = end;
  }
  if (last > list->elements()->length()) {
    return MakeError(ErrorCode::kInvalidInput, "a list's last offset {} is past its {} elements", last,
                     list->elements()->length());
  }
  return list;
}

Scalar ListArray::GetScalar(int64_t i) const {
  if (IsNull(i)) return Scalar::Null(type().id).As(type());
  const bool map = type().id == TypeId::kMap;
  std::string text = map ? "{" : "[";
  const StructArray* entries = map ? static_cast<const StructArray*>(elements_.get()) : nullptr;
  for (int64_t j = Start(i); j < End(i); ++j) {
    text += j > Start(i) ? ", " : "";
    if (map) {
      text += fmt::format("{}: {}", PartText(entries->children()[0]->GetScalar(j)), PartText(entries->children()[1]->GetScalar(j)));
    } else {
      text += PartText(elements_->GetScalar(j));
    }
  }
  return Scalar::Struct(type(), text + (map ? "}" : "]"));
}

Status ListArray::Validate() const { return elements_->Validate(); }

ArrayPtr ListArray::SliceUnchecked(int64_t offset, int64_t length) const {
  return ArrayPtr(std::make_shared<const ListArray>(PrivateTag{}, type(), length, large_, offsets_, elements_,
                                                    validity_.Slice(offset), offset_ + offset));
}

namespace {

// `a`'s values typed `t` (its type but for nullability) with the rows `v` says are valid; a
// constant's rows made flat. Not a dictionary (its codes are rebuilt).
Result<ArrayPtr> Rebuilt(const ArrayPtr& a, const DataType& t, Validity v) {
  const int64_t n = a->length();
  switch (a->encoding()) {
    case Encoding::kPrimitive: {
      const auto& p = static_cast<const PrimitiveArray&>(*a);
      ROWJIT_ASSIGN_OR_RETURN(auto out, PrimitiveArray::Make(t, n, p.values_buffer(), std::move(v), p.offset()));
      return ArrayPtr(std::move(out));
    }
    case Encoding::kBool: {
      const auto& b = static_cast<const BoolArray&>(*a);
      ROWJIT_ASSIGN_OR_RETURN(auto out, BoolArray::Make(n, b.bits_buffer(), std::move(v), b.offset(), t.nullable));
      return ArrayPtr(std::move(out));
    }
    case Encoding::kByteBool: {
      const auto& b = static_cast<const ByteBoolArray&>(*a);
      ROWJIT_ASSIGN_OR_RETURN(auto out, ByteBoolArray::Make(n, b.bytes_buffer(), std::move(v), b.offset(), t.nullable));
      return ArrayPtr(std::move(out));
    }
    case Encoding::kFixedList: {
      const auto& l = static_cast<const FixedListArray&>(*a);
      ROWJIT_ASSIGN_OR_RETURN(auto out, FixedListArray::Make(t, n, l.values_buffer(), std::move(v), l.offset()));
      return ArrayPtr(std::move(out));
    }
    case Encoding::kStruct: {
      const auto& s = static_cast<const StructArray&>(*a);
      ROWJIT_ASSIGN_OR_RETURN(auto out, StructArray::Make(t, n, s.children(), std::move(v)));
      return ArrayPtr(std::move(out));
    }
    case Encoding::kList: {
      const auto& l = static_cast<const ListArray&>(*a);
      ROWJIT_ASSIGN_OR_RETURN(auto out, ListArray::Make(t, n, l.large(), l.offsets_buffer(), l.elements(), std::move(v), l.offset()));
      return ArrayPtr(std::move(out));
    }
    case Encoding::kString: {
      const auto& s = static_cast<const StringArray&>(*a);
      if (s.layout() == StringLayout::kViews) {
        ROWJIT_ASSIGN_OR_RETURN(auto out, StringArray::MakeViews(t, n, s.main_buffer(), s.data_buffers(), std::move(v), s.offset()));
        return ArrayPtr(std::move(out));
      }
      const BufferPtr data = s.data_buffers().empty() ? nullptr : s.data_buffers()[0];
      ROWJIT_ASSIGN_OR_RETURN(auto out, StringArray::MakeOffsets(t, n, s.layout(), s.main_buffer(), data, std::move(v), s.offset()));
      return ArrayPtr(std::move(out));
    }
    case Encoding::kDictionary: return MakeError(ErrorCode::kInternal, "a dictionary is rebuilt through its codes");
    case Encoding::kConstant: break;
  }
  // A constant: its rows made flat, null where `v` says.
  const Scalar value = static_cast<const ConstantArray&>(*a).value();
  if (IsString(t.id)) {
    std::vector<std::optional<std::string_view>> rows;
    for (int64_t i = 0; i < n; ++i) rows.push_back(v.IsValid(i) ? std::optional<std::string_view>(value.str()) : std::nullopt);
    ROWJIT_ASSIGN_OR_RETURN(auto out, MakeStringArray(t, StringLayout::kOffsets32, rows));
    return ArrayPtr(std::move(out));
  }
  if (!IsPrimitiveStorage(t.id) && t.id != TypeId::kBool) {
    return MakeError(ErrorCode::kUnsupported, "a constant {} under a struct's nulls", t.ToString());
  }
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < n; ++i) rows.push_back(v.IsValid(i) ? value : Scalar::Null(t.id).As(t));
  return MakeArray(t, rows);
}

Result<ArrayPtr> OverCodes(const DictionaryArray& d, const ArrayPtr& codes) {
  ROWJIT_ASSIGN_OR_RETURN(auto out, DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(codes), d.values()));
  return ArrayPtr(std::move(out));
}

}  // namespace

Result<ArrayPtr> WithNulls(const ArrayPtr& a, const Validity& extra, bool nullable) {
  const int64_t n = a->length();
  if ((extra.all_valid() || n == 0) && (!nullable || a->type().nullable)) return a;
  if (a->encoding() == Encoding::kDictionary) {
    const auto& d = static_cast<const DictionaryArray&>(*a);
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr codes, WithNulls(d.codes(), extra, nullable));
    return OverCodes(d, codes);
  }
  const Validity both[] = {ValidityOf(*a), extra};
  ROWJIT_ASSIGN_OR_RETURN(Validity v, AndValidity(both, n));
  return Rebuilt(a, a->type().WithNullable(true), std::move(v));
}

Result<ArrayPtr> WithNullability(const ArrayPtr& a, bool nullable) {
  if (a->type().nullable == nullable) return a;
  if (!nullable && a->NullCount() > 0) return MakeError(ErrorCode::kInvalidInput, "a {} array with nulls is not of a type without", a->type().ToString());
  if (a->encoding() == Encoding::kDictionary) {
    const auto& d = static_cast<const DictionaryArray&>(*a);
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr codes, WithNullability(d.codes(), nullable));
    return OverCodes(d, codes);
  }
  return Rebuilt(a, a->type().WithNullable(nullable), ValidityOf(*a));
}

Result<ArrayPtr> Flat(const ArrayPtr& a) {
  if (a->encoding() != Encoding::kConstant) return a;
  return Rebuilt(a, a->type(), ValidityOf(*a));
}

// --- PrimitiveArray ---------------------------------------------------------------------------

Result<std::shared_ptr<const PrimitiveArray>> PrimitiveArray::Make(DataType type, int64_t length,
                                                                   BufferPtr values,
                                                                   Validity validity,
                                                                   int64_t offset) {
  if (!IsPrimitiveStorage(type.id)) {
    return MakeError(ErrorCode::kTypeError, "a primitive array holds fixed-width values, not {}",
                     type.ToString());
  }
  ROWJIT_RETURN_NOT_OK(CheckExtent(offset, length));
  if (values == nullptr) return MakeError(ErrorCode::kInvalidInput, "values buffer is null");
  const int64_t need = (offset + length) * ByteWidth(type.id);
  if (values->size() < need) {
    return MakeError(ErrorCode::kInvalidInput,
                     "{} values buffer of {} bytes is shorter than the {} bytes {} rows at "
                     "offset {} need",
                     type.ToString(), values->size(), need, length, offset);
  }
  ROWJIT_RETURN_NOT_OK(CheckValidity(validity, length, type.nullable));
  return std::make_shared<const PrimitiveArray>(PrivateTag{}, type, length, std::move(values),
                                                std::move(validity), offset);
}

Scalar PrimitiveArray::GetScalar(int64_t i) const {
  if (IsNull(i)) return Scalar::Null(type().id).As(type());
  if (type().id == TypeId::kI128) {
    __int128 v;
    std::memcpy(&v, raw_values() + i * 16, 16);
    return Scalar::Int128(v, type());
  }
  const int width = ByteWidth(type().id);
  uint64_t bits = 0;
  std::memcpy(&bits, raw_values() + i * width, static_cast<size_t>(width));
  const Scalar s = Scalar::FromBits(type().id, bits);
  return type().is_logical() ? s.As(type()) : s;
}

ArrayPtr PrimitiveArray::SliceUnchecked(int64_t offset, int64_t length) const {
  return ArrayPtr(
      std::make_shared<const PrimitiveArray>(PrivateTag{}, type(), length, values_, validity_.Slice(offset),
                                             offset_ + offset));
}

// --- BoolArray --------------------------------------------------------------------------------

Result<std::shared_ptr<const BoolArray>> BoolArray::Make(int64_t length, BufferPtr bits,
                                                         Validity validity, int64_t offset,
                                                         bool nullable) {
  ROWJIT_RETURN_NOT_OK(CheckExtent(offset, length));
  if (bits == nullptr) return MakeError(ErrorCode::kInvalidInput, "bool values buffer is null");
  if (bits->size() < kernels::NumBytes(offset + length)) {
    return MakeError(ErrorCode::kInvalidInput,
                     "bool values buffer of {} bytes is shorter than the {} bits it claims",
                     bits->size(), offset + length);
  }
  ROWJIT_RETURN_NOT_OK(CheckValidity(validity, length, nullable));
  return std::shared_ptr<const BoolArray>(new BoolArray(DataType(TypeId::kBool, nullable), length,
                                                        std::move(bits), std::move(validity),
                                                        offset));
}

Scalar BoolArray::GetScalar(int64_t i) const {
  return IsNull(i) ? Scalar::Null(TypeId::kBool) : Scalar::Of(Value(i));
}

ArrayPtr BoolArray::SliceUnchecked(int64_t offset, int64_t length) const {
  return ArrayPtr(new BoolArray(type(), length, bits_, validity_.Slice(offset), offset_ + offset));
}

// --- ByteBoolArray ----------------------------------------------------------------------------

Result<std::shared_ptr<const ByteBoolArray>> ByteBoolArray::Make(int64_t length, BufferPtr bytes,
                                                                 Validity validity, int64_t offset,
                                                                 bool nullable) {
  ROWJIT_RETURN_NOT_OK(CheckExtent(offset, length));
  if (bytes == nullptr) return MakeError(ErrorCode::kInvalidInput, "byte-bool buffer is null");
  if (bytes->size() < offset + length) {
    return MakeError(ErrorCode::kInvalidInput,
                     "byte-bool buffer of {} bytes is shorter than the {} rows it claims "
                     "(offset {})",
                     bytes->size(), length, offset);
  }
  ROWJIT_RETURN_NOT_OK(CheckValidity(validity, length, nullable));
  return std::shared_ptr<const ByteBoolArray>(new ByteBoolArray(
      DataType(TypeId::kBool, nullable), length, std::move(bytes), std::move(validity), offset));
}

Result<std::shared_ptr<const BoolArray>> ByteBoolArray::ToBool() const {
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(length()));
  kernels::PackByteBools(bytes(), length(), bits->mutable_data());
  return BoolArray::Make(length(), std::move(bits), validity_, 0, type().nullable);
}

Scalar ByteBoolArray::GetScalar(int64_t i) const {
  return IsNull(i) ? Scalar::Null(TypeId::kBool) : Scalar::Of(Value(i));
}

ArrayPtr ByteBoolArray::SliceUnchecked(int64_t offset, int64_t length) const {
  return ArrayPtr(
      new ByteBoolArray(type(), length, bytes_, validity_.Slice(offset), offset_ + offset));
}

// --- ConstantArray ----------------------------------------------------------------------------

Result<std::shared_ptr<const ConstantArray>> ConstantArray::Make(Scalar value, int64_t length,
                                                                 bool nullable) {
  ROWJIT_RETURN_NOT_OK(CheckExtent(0, length));
  return std::shared_ptr<const ConstantArray>(new ConstantArray(
      value.type().WithNullable(nullable || value.is_null()), length, value));
}

Scalar ConstantArray::GetScalar(int64_t) const { return value_; }

ArrayPtr ConstantArray::SliceUnchecked(int64_t, int64_t length) const {
  return ArrayPtr(new ConstantArray(type(), length, value_));
}

// --- DictionaryArray --------------------------------------------------------------------------

Result<std::shared_ptr<const DictionaryArray>> DictionaryArray::Make(
    std::shared_ptr<const PrimitiveArray> codes, ArrayPtr values) {
  if (codes == nullptr || values == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "dictionary without codes or values");
  }
  if (!IsInteger(codes->type().id)) {
    return MakeError(ErrorCode::kTypeError, "dictionary codes must be integers, not {}",
                     codes->type().ToString());
  }
  if (values->encoding() == Encoding::kDictionary || values->encoding() == Encoding::kConstant) {
    return MakeError(ErrorCode::kUnsupported, "dictionary values must be a flat array, not {}",
                     EncodingName(values->encoding()));
  }
  // The values' whole type (a decimal's precision and scale, a unit, a zone), nullable where
  // either the codes or the values are.
  const DataType type = values->type().WithNullable(codes->type().nullable || values->type().nullable);
  return std::shared_ptr<const DictionaryArray>(
      new DictionaryArray(type, std::move(codes), std::move(values)));
}

int64_t DictionaryArray::Code(int64_t i) const {
  const PrimitiveArray& c = *codes_;
  return VisitType(c.type().id, [&]<typename T>(std::type_identity<T>) -> int64_t {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      T v = c.values<T>()[i];
      // u64 codes beyond int64 range map to -1, which Validate() rejects as out of range.
      if constexpr (std::is_same_v<T, uint64_t>) {
        return v > uint64_t(std::numeric_limits<int64_t>::max()) ? -1 : int64_t(v);
      }
      return static_cast<int64_t>(v);
    } else {
      return -1;
    }
  });
}

bool DictionaryArray::IsNull(int64_t i) const {
  if (codes_->IsNull(i)) return true;
  const int64_t code = Code(i);
  return code < 0 || code >= values_->length() || values_->IsNull(code);
}

int64_t DictionaryArray::NullCount() const {
  if (!values_->type().nullable || values_->NullCount() == 0) return codes_->NullCount();
  int64_t n = 0;
  for (int64_t i = 0; i < length(); ++i) n += IsNull(i);
  return n;
}

Scalar DictionaryArray::GetScalar(int64_t i) const {
  if (IsNull(i)) return Scalar::Null(type().id).As(type());
  return values_->GetScalar(Code(i));
}

namespace {

// The first row whose code lies outside [0, n) and is not null, or -1: blocks of rows are scanned
// with an OR of the comparisons (no branch per row), and only a block with a hit row by row.
template <typename T>
int64_t FirstBadCode(const T* codes, const PrimitiveArray& c, int64_t length, int64_t n) {
  constexpr int64_t kBlock = 256;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<T>::max());
  // A dictionary of more than kMax values holds every non-negative code of type T.
  const bool all_fit = static_cast<uint64_t>(n) > kMax;
  if (all_fit && std::is_unsigned_v<T>) return -1;
  // Compared in the codes' own type, so that the scan vectorizes at their width.
  const T limit = all_fit ? T{0} : static_cast<T>(n);
  auto bad = [=](T v) -> bool {  // (all_fit is read only for signed codes)
    if constexpr (std::is_signed_v<T>) {
      return all_fit ? v < 0 : (v < 0) | (v >= limit);
    } else {
      return v >= limit;
    }
  };
  for (int64_t start = 0; start < length; start += kBlock) {
    const int64_t end = std::min(length, start + kBlock);
    uint32_t any = 0;  // an integer OR, which the compiler vectorizes (a bool one it does not)
    for (int64_t i = start; i < end; ++i) any |= static_cast<uint32_t>(bad(codes[i]));
    if (!any) continue;
    for (int64_t i = start; i < end; ++i) {
      if (bad(codes[i]) && !c.IsNull(i)) return i;
    }
  }
  return -1;
}

}  // namespace

Status DictionaryArray::Validate() const {
  const int64_t n = values_->length();
  const PrimitiveArray& c = *codes_;
  const int64_t row = VisitType(c.type().id, [&]<typename T>(std::type_identity<T>) -> int64_t {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      return FirstBadCode(c.values<T>(), c, length(), n);
    } else {
      return length() > 0 ? 0 : -1;
    }
  });
  if (row < 0) return Status::OK();
  return Error(ErrorCode::kInvalidInput, fmt::format("dictionary code {} at row {} is outside a dictionary of {} values",
                                                     codes_->GetScalar(row).ToString(), row, n));
}

ArrayPtr DictionaryArray::SliceUnchecked(int64_t offset, int64_t length) const {
  auto codes = std::static_pointer_cast<const PrimitiveArray>(*codes_->Slice(offset, length));
  return ArrayPtr(new DictionaryArray(type(), std::move(codes), values_));
}

// --- Schema and RecordBatch -------------------------------------------------------------------

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::ToString() const {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    const Field& f = fields[i];
    std::string type = IsString(f.type.id) ? StringTypeName(f.type.id, f.layout) + (f.type.nullable ? "?" : "") : f.type.ToString();
    if (f.type.id == TypeId::kList && f.layout == StringLayout::kOffsets64) type = "large_" + type;
    out += f.name + ":" + type;
  }
  return out;
}

namespace {
std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}
bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// The end of the schema item starting at `start`: the next comma outside brackets
// ("d:decimal(12,2), t:timestamp(us, UTC), v:fixed_size_list<f32, 3>").
size_t ItemEnd(std::string_view text, size_t start) {
  int depth = 0;
  for (size_t i = start; i < text.size(); ++i) {
    if (text[i] == '(' || text[i] == '<' || text[i] == '[') ++depth;
    if ((text[i] == ')' || text[i] == '>' || text[i] == ']') && depth > 0) --depth;
    if (text[i] == ',' && depth == 0) return i;
  }
  return text.size();
}

}  // namespace

Result<Schema> ParseSchema(std::string_view text) {
  Schema schema;
  if (Trim(text).empty()) return schema;
  // Every error points at its part of `text` (its views into it give the offsets).
  auto at = [&](std::string_view part, Error e) {
    return std::move(e).WithSpan({static_cast<size_t>(part.data() - text.data()), part.size()});
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = ItemEnd(text, start);
    std::string_view item = Trim(text.substr(start, comma - start));
    if (item.empty()) item = text.substr(start, 0);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      return at(item, MakeError(ErrorCode::kInvalidInput, "schema field '{}' is not NAME:TYPE", item));
    }
    std::string_view name = Trim(item.substr(0, colon));
    if (name.empty()) name = item.substr(0, 0);
    if (!IsIdentifier(name)) {
      return at(name, MakeError(ErrorCode::kInvalidInput, "schema field name '{}' is not an identifier", name));
    }
    if (schema.FieldIndex(name) >= 0) {
      return at(name, MakeError(ErrorCode::kInvalidInput, "schema names field '{}' twice", name));
    }
    const std::string_view type_text = item.substr(colon + 1);
    const std::string_view trimmed = Trim(type_text);
    const bool nullable = trimmed.ends_with('?');
    const std::string_view base = nullable ? Trim(trimmed.substr(0, trimmed.size() - 1)) : trimmed;
    Field field{std::string(name), DataType(), StringLayout::kOffsets32};
    bool is_string = false;
    for (TypeId id : {TypeId::kUtf8, TypeId::kBinary}) {
      for (StringLayout l : {StringLayout::kOffsets32, StringLayout::kOffsets64, StringLayout::kViews}) {
        if (base == StringTypeName(id, l)) {
          field.type = DataType(id, nullable);
          field.layout = l;
          is_string = true;
        }
      }
    }
    if (!is_string) {
      auto type = ParseDataType(type_text);
      if (type.ok() && type->id == TypeId::kList && Trim(base.substr(0, base.find('<'))) == "large_list") {
        field.layout = StringLayout::kOffsets64;  // the list's offsets are 64-bit
      }
      if (!type.ok()) return std::move(type).TakeError().ShiftSpan(static_cast<size_t>(type_text.data() - text.data()));
      field.type = *type;
    }
    schema.fields.push_back(std::move(field));
    start = comma + 1;
  }
  return schema;
}

Result<RecordBatch> RecordBatch::Make(Schema schema, std::vector<ArrayPtr> columns) {
  if (schema.fields.size() != columns.size()) {
    return MakeError(ErrorCode::kInvalidInput, "schema has {} fields but {} columns were given",
                     schema.fields.size(), columns.size());
  }
  int64_t length = columns.empty() ? 0 : columns[0]->length();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == nullptr) {
      return MakeError(ErrorCode::kInvalidInput, "column '{}' is null", schema.fields[i].name);
    }
    if (columns[i]->length() != length) {
      return MakeError(ErrorCode::kInvalidInput, "column '{}' has {} rows, expected {}",
                       schema.fields[i].name, columns[i]->length(), length);
    }
    if (!columns[i]->type().SameType(schema.fields[i].type)) {
      return MakeError(ErrorCode::kTypeError, "column '{}' is {}, the schema says {}",
                       schema.fields[i].name, columns[i]->type().ToString(),
                       schema.fields[i].type.ToString());
    }
  }
  return RecordBatch{std::move(schema), std::move(columns), length};
}

bool ArraysEqual(const Array& a, const Array& b) {
  if (!a.type().SameType(b.type()) || a.length() != b.length()) return false;
  for (int64_t i = 0; i < a.length(); ++i) {
    if (!(a.GetScalar(i) == b.GetScalar(i))) return false;
  }
  return true;
}

namespace {
// Two vectors of one type, element by element, every NaN equal to every other.
bool SameVectors(const Scalar& x, const Scalar& y) {
  const std::string_view p = x.str(), q = y.str();
  if (p.size() != q.size()) return false;
  if (!IsFloat(x.type().elem)) return p == q;
  return VisitType(x.type().elem, [&]<typename T>(std::type_identity<T>) {
    for (size_t at = 0; at < p.size(); at += sizeof(T)) {
      T u, v;
      std::memcpy(&u, p.data() + at, sizeof(T));
      std::memcpy(&v, q.data() + at, sizeof(T));
      if (std::memcmp(&u, &v, sizeof(T)) != 0 && !(u != u && v != v)) return false;
    }
    return true;
  });
}
}  // namespace

int64_t FirstDifference(const Array& a, const Array& b) {
  const int64_t n = std::min(a.length(), b.length());
  for (int64_t i = 0; i < n; ++i) {
    const Scalar x = a.GetScalar(i), y = b.GetScalar(i);
    if (x.is_null() != y.is_null()) return i;
    if (x.is_null() || x == y) continue;
    if (x.type_id() == TypeId::kF32 && std::isnan(x.value<float>()) && std::isnan(y.value<float>())) continue;
    if (x.type_id() == TypeId::kF64 && std::isnan(x.value<double>()) && std::isnan(y.value<double>())) continue;
    if (x.type_id() == TypeId::kFixedList && SameVectors(x, y)) continue;
    return i;
  }
  return -1;
}

Validity ValidityOf(const Array& a) {
  switch (a.encoding()) {
    case Encoding::kPrimitive: return static_cast<const PrimitiveArray&>(a).validity();
    case Encoding::kBool: return static_cast<const BoolArray&>(a).validity();
    case Encoding::kByteBool: return static_cast<const ByteBoolArray&>(a).validity();
    case Encoding::kConstant:
      return static_cast<const ConstantArray&>(a).value().is_null() ? Validity::AllNull() : Validity::AllValid();
    case Encoding::kDictionary: return static_cast<const DictionaryArray&>(a).codes()->validity();
    case Encoding::kString: return static_cast<const StringArray&>(a).validity();
    case Encoding::kFixedList: return static_cast<const FixedListArray&>(a).validity();
    case Encoding::kStruct: return static_cast<const StructArray&>(a).validity();
    case Encoding::kList: return static_cast<const ListArray&>(a).validity();
  }
  return Validity::AllValid();
}

}  // namespace rowjit
