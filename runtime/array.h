// Columnar arrays: primitive, bool (bit-packed), byte-bool, constant, dictionary; zero-copy
// slicing of every kind; record batches and schemas (runtime layer).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/buffer.h"
#include "runtime/types.h"
#include "runtime/validity.h"

namespace rowjit {

enum class Encoding : uint8_t { kPrimitive, kBool, kByteBool, kConstant, kDictionary, kString, kFixedList, kStruct, kList };
std::string_view EncodingName(Encoding e);

class Array;
using ArrayPtr = std::shared_ptr<const Array>;

// Base of every array. Immutable once made (but for ForgetNullCount, for the one holder of an
// array over memory it rewrote); shared by pointer.
class Array {
 public:
  virtual ~Array() = default;
  Encoding encoding() const { return encoding_; }
  DataType type() const { return type_; }
  int64_t length() const { return length_; }

  // Rows [offset, offset + length) without copying; out-of-range bounds are an error.
  Result<ArrayPtr> Slice(int64_t offset, int64_t length) const;
  virtual bool IsNull(int64_t i) const = 0;
  virtual int64_t NullCount() const = 0;
  // Row i as a scalar (null scalar for null rows). Not for hot loops.
  virtual Scalar GetScalar(int64_t i) const = 0;
  // Deep checks that construction does not do (dictionary codes in range).
  virtual Status Validate() const { return Status::OK(); }
  // "[1, null, 3]" — short arrays for messages and tests.
  std::string ToString(int64_t max_rows = 32) const;
  // Counts the nulls again at the next NullCount: for the one holder of an array over memory it
  // rewrote (a prepared handle handing its last result over the caller's buffers out again,
  // jit/api/prepared.cc). Nobody else may hold the array.
  void ForgetNullCount() const { null_count_.store(-1, std::memory_order_relaxed); }

 protected:
  Array(Encoding encoding, DataType type, int64_t length)
      : encoding_(encoding), type_(type), length_(length) {}
  virtual ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const = 0;
  // The null count of `validity` over this array's rows, counted once and cached (arrays are
  // immutable; the executor asks for it several times per batch).
  int64_t CachedNullCount(const Validity& validity) const;

 private:
  Encoding encoding_;
  DataType type_;
  int64_t length_;
  mutable std::atomic<int64_t> null_count_{-1};
};

// Fixed-width numbers: values[offset, offset + length) of a buffer, and a validity.
class PrimitiveArray final : public Array {
  struct PrivateTag {  // only the factories construct one (make_shared: one allocation)
    explicit PrivateTag() = default;
  };

 public:
  PrimitiveArray(PrivateTag, DataType type, int64_t length, BufferPtr values, Validity validity, int64_t offset)
      : Array(Encoding::kPrimitive, type, length),
        values_(std::move(values)), validity_(std::move(validity)), offset_(offset) {}
  // Checks the type is numeric, the buffer holds offset + length elements, a non-nullable type
  // has no nulls, and the validity bitmap covers the rows.
  static Result<std::shared_ptr<const PrimitiveArray>> Make(DataType type, int64_t length,
                                                            BufferPtr values, Validity validity,
                                                            int64_t offset = 0);

  const BufferPtr& values_buffer() const { return values_; }
  int64_t offset() const { return offset_; }
  const Validity& validity() const { return validity_; }
  // The first row's address.
  const uint8_t* raw_values() const { return values_->data() + offset_ * ByteWidth(type().id); }
  template <typename T> const T* values() const {
    return reinterpret_cast<const T*>(raw_values());
  }

  bool IsNull(int64_t i) const override { return !validity_.IsValid(i); }
  int64_t NullCount() const override { return CachedNullCount(validity_); }
  Scalar GetScalar(int64_t i) const override;

 private:
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  BufferPtr values_;
  Validity validity_;
  int64_t offset_;
};

// Booleans, one bit a row, LSB-first, starting at bit `offset` of the buffer.
class BoolArray final : public Array {
 public:
  static Result<std::shared_ptr<const BoolArray>> Make(int64_t length, BufferPtr bits,
                                                       Validity validity, int64_t offset = 0,
                                                       bool nullable = false);
  const BufferPtr& bits_buffer() const { return bits_; }
  int64_t offset() const { return offset_; }
  const Validity& validity() const { return validity_; }
  kernels::BitSpan bits() const { return kernels::BitSpan{bits_->data(), offset_, length()}; }
  bool Value(int64_t i) const { return kernels::GetBit(bits_->data(), offset_ + i); }

  bool IsNull(int64_t i) const override { return !validity_.IsValid(i); }
  int64_t NullCount() const override { return CachedNullCount(validity_); }
  Scalar GetScalar(int64_t i) const override;

 private:
  BoolArray(DataType type, int64_t length, BufferPtr bits, Validity validity, int64_t offset)
      : Array(Encoding::kBool, type, length),
        bits_(std::move(bits)), validity_(std::move(validity)), offset_(offset) {}
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  BufferPtr bits_;
  Validity validity_;
  int64_t offset_;
};

// Booleans, one byte a row (nonzero = true), zero-copy over the caller's bytes. The bytes are
// untrusted: a buffer shorter than offset + length is an error here, not a fault later.
class ByteBoolArray final : public Array {
 public:
  static Result<std::shared_ptr<const ByteBoolArray>> Make(int64_t length, BufferPtr bytes,
                                                           Validity validity, int64_t offset = 0,
                                                           bool nullable = false);
  const BufferPtr& bytes_buffer() const { return bytes_; }
  int64_t offset() const { return offset_; }
  const Validity& validity() const { return validity_; }
  const uint8_t* bytes() const { return bytes_->data() + offset_; }
  bool Value(int64_t i) const { return bytes()[i] != 0; }
  // The same rows bit-packed (values and validity at bit offset 0).
  Result<std::shared_ptr<const BoolArray>> ToBool() const;

  bool IsNull(int64_t i) const override { return !validity_.IsValid(i); }
  int64_t NullCount() const override { return CachedNullCount(validity_); }
  Scalar GetScalar(int64_t i) const override;

 private:
  ByteBoolArray(DataType type, int64_t length, BufferPtr bytes, Validity validity, int64_t offset)
      : Array(Encoding::kByteBool, type, length),
        bytes_(std::move(bytes)), validity_(std::move(validity)), offset_(offset) {}
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  BufferPtr bytes_;
  Validity validity_;
  int64_t offset_;
};

// One scalar repeated `length` times; a null scalar makes a null constant.
class ConstantArray final : public Array {
 public:
  // The type is the scalar's; nullable when the scalar is null or `nullable` says so.
  static Result<std::shared_ptr<const ConstantArray>> Make(Scalar value, int64_t length,
                                                           bool nullable = false);
  const Scalar& value() const { return value_; }

  bool IsNull(int64_t) const override { return value_.is_null(); }
  int64_t NullCount() const override { return value_.is_null() ? length() : 0; }
  Scalar GetScalar(int64_t i) const override;

 private:
  ConstantArray(DataType type, int64_t length, Scalar value)
      : Array(Encoding::kConstant, type, length), value_(value) {}
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  Scalar value_;
};

// Integer codes, possibly null, into a values array. Codes are checked by Validate() (import
// and the executor call it), not at construction, so making one is O(1).
class DictionaryArray final : public Array {
 public:
  static Result<std::shared_ptr<const DictionaryArray>> Make(
      std::shared_ptr<const PrimitiveArray> codes, ArrayPtr values);
  const std::shared_ptr<const PrimitiveArray>& codes() const { return codes_; }
  const ArrayPtr& values() const { return values_; }
  // Code of row i as a signed 64-bit index (only meaningful for valid codes).
  int64_t Code(int64_t i) const;

  bool IsNull(int64_t i) const override;
  int64_t NullCount() const override;
  Scalar GetScalar(int64_t i) const override;
  Status Validate() const override;

 private:
  DictionaryArray(DataType type, std::shared_ptr<const PrimitiveArray> codes, ArrayPtr values)
      : Array(Encoding::kDictionary, type, codes->length()),
        codes_(std::move(codes)), values_(std::move(values)) {}
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  std::shared_ptr<const PrimitiveArray> codes_;
  ArrayPtr values_;
};

// Vectors (fixed_size_list<elem, N>): N elements a row, row i's at elements [(offset + i) * N,
// (offset + i + 1) * N) of a flat buffer, and a validity for the rows (the elements have none).
class FixedListArray final : public Array {
  struct PrivateTag {
    explicit PrivateTag() = default;
  };

 public:
  FixedListArray(PrivateTag, DataType type, int64_t length, BufferPtr values, Validity validity, int64_t offset)
      : Array(Encoding::kFixedList, type, length),
        values_(std::move(values)), validity_(std::move(validity)), offset_(offset) {}
  // Checks the type is a fixed_size_list, the buffer holds (offset + length) rows of elements, a
  // non-nullable type has no nulls and the validity covers the rows.
  static Result<std::shared_ptr<const FixedListArray>> Make(DataType type, int64_t length, BufferPtr values,
                                                            Validity validity, int64_t offset = 0);

  const BufferPtr& values_buffer() const { return values_; }
  int64_t offset() const { return offset_; }  // in rows
  const Validity& validity() const { return validity_; }
  int64_t list_size() const { return type().list_size; }
  // The first element of the first row.
  const uint8_t* raw_values() const { return values_->data() + offset_ * type().ListRowBytes(); }
  // Row i's elements as stored.
  std::string_view RowBytes(int64_t i) const {
    const int64_t row = type().ListRowBytes();
    return {reinterpret_cast<const char*>(raw_values() + i * row), static_cast<size_t>(row)};
  }

  bool IsNull(int64_t i) const override { return !validity_.IsValid(i); }
  int64_t NullCount() const override { return CachedNullCount(validity_); }
  Scalar GetScalar(int64_t i) const override;

 private:
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  BufferPtr values_;
  Validity validity_;
  int64_t offset_;
};

// Structs: a validity for the rows and one child array per field, each holding exactly this
// array's rows (a slice slices every child).
class StructArray final : public Array {
  struct PrivateTag {
    explicit PrivateTag() = default;
  };

 public:
  StructArray(PrivateTag, DataType type, int64_t length, std::vector<ArrayPtr> children, Validity validity)
      : Array(Encoding::kStruct, type, length), children_(std::move(children)), validity_(std::move(validity)) {}
  // Checks the type is a struct, one child per field of the field's type (nullability aside: a
  // non-nullable field's child has no nulls) and of `length` rows, and the validity.
  static Result<std::shared_ptr<const StructArray>> Make(DataType type, int64_t length, std::vector<ArrayPtr> children,
                                                         Validity validity);
  const std::vector<ArrayPtr>& children() const { return children_; }
  const Validity& validity() const { return validity_; }

  bool IsNull(int64_t i) const override { return !validity_.IsValid(i); }
  int64_t NullCount() const override { return CachedNullCount(validity_); }
  // A row as its text: {x: 1, y: 'a', z: null}.
  Scalar GetScalar(int64_t i) const override;
  Status Validate() const override;

 private:
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  std::vector<ArrayPtr> children_;
  Validity validity_;
};

// Lists and maps (list<T>, map<K, V>): row i's elements are elements [offsets[offset + i],
// offsets[offset + i + 1]) of one child array (a map's child is its struct<key, value> entries).
// The offsets are 32-bit (Arrow's list, map) or 64-bit (large_list), non-decreasing over the
// rows and within the child: Make checks them once, so readers index the child unchecked.
class ListArray final : public Array {
  struct PrivateTag {
    explicit PrivateTag() = default;
  };

 public:
  ListArray(PrivateTag, DataType type, int64_t length, bool large, BufferPtr offsets, ArrayPtr elements,
            Validity validity, int64_t offset)
      : Array(Encoding::kList, type, length), large_(large), offsets_(std::move(offsets)), elements_(std::move(elements)),
        validity_(std::move(validity)), offset_(offset) {}
  // Checks the type is a list or a map, the child is of its element type, the offsets buffer
  // holds offset + length + 1 offsets that never decrease and stay within the child, a null
  // row's too (its elements are ignored), and the validity.
  static Result<std::shared_ptr<const ListArray>> Make(DataType type, int64_t length, bool large, BufferPtr offsets,
                                                       ArrayPtr elements, Validity validity, int64_t offset = 0);

  bool large() const { return large_; }  // 64-bit offsets
  const BufferPtr& offsets_buffer() const { return offsets_; }
  const ArrayPtr& elements() const { return elements_; }
  int64_t offset() const { return offset_; }  // in rows
  const Validity& validity() const { return validity_; }
  // Row i's first element and one past its last, in the child.
  int64_t Start(int64_t i) const { return OffsetAt(offset_ + i); }
  int64_t End(int64_t i) const { return OffsetAt(offset_ + i + 1); }
  // The offsets from row 0's, as stored: O is int64_t when large(), int32_t otherwise.
  template <typename O>
  const O* Offsets() const {
    return reinterpret_cast<const O*>(offsets_->data()) + offset_;
  }

  bool IsNull(int64_t i) const override { return !validity_.IsValid(i); }
  int64_t NullCount() const override { return CachedNullCount(validity_); }
  // A row as its text: [1, 2, null]; a map's {'a': 1, 'b': null}.
  Scalar GetScalar(int64_t i) const override;
  Status Validate() const override;

 private:
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;
  int64_t OffsetAt(int64_t k) const {
    return large_ ? reinterpret_cast<const int64_t*>(offsets_->data())[k]
                  : reinterpret_cast<const int32_t*>(offsets_->data())[k];
  }

  bool large_;
  BufferPtr offsets_;
  ArrayPtr elements_;
  Validity validity_;
  int64_t offset_;
};

// A named, typed column; a string column also names the Arrow layout it arrives in (what the
// schema text, the CLI's random batches and kernels planned from a schema go by), and a list
// column its offsets' width (kOffsets64: large_list).
struct Field {
  std::string name;
  DataType type;
  StringLayout layout = StringLayout::kOffsets32;
  bool operator==(const Field&) const = default;
};

// Ordered fields. Text: "a:i32?, b:i32, c:u8, s:utf8?, t:large_binary, v:utf8_view".
struct Schema {
  std::vector<Field> fields;
  // Index of the field called `name`, or -1.
  int FieldIndex(std::string_view name) const;
  std::string ToString() const;
  bool operator==(const Schema&) const = default;
};
Result<Schema> ParseSchema(std::string_view text);

// Equal-length columns under a schema.
struct RecordBatch {
  Schema schema;
  std::vector<ArrayPtr> columns;
  int64_t length = 0;
  static Result<RecordBatch> Make(Schema schema, std::vector<ArrayPtr> columns);
};

// Logical equality: same type id and length, same nulls, same values bit for bit at valid rows,
// whatever the encodings. Values behind nulls are ignored.
bool ArraysEqual(const Array& a, const Array& b);

// The first row where two arrays of the same type differ in nullness or value, or -1 (also
// -1 for arrays of different types or lengths: check those first). Every NaN equals every
// other NaN: IEEE 754 leaves the sign and payload of a computed NaN open.
int64_t FirstDifference(const Array& a, const Array& b);

// `array`'s rows with the nulls of `extra` added (a struct's null rows for one of its fields):
// the same values, validity the AND of both. Any encoding; nullable when either has nulls, or
// when `nullable` asks (a nullable struct's field is of a nullable type whatever its rows).
Result<ArrayPtr> WithNulls(const ArrayPtr& array, const Validity& extra, bool nullable = false);
// `array` of its type made nullable or not (a map's keys are never null): the same rows; an
// error where it has a null and `nullable` is false.
Result<ArrayPtr> WithNullability(const ArrayPtr& array, bool nullable);
// `array`'s rows in a layout of their own: a constant's made flat (a struct's child, a list's
// elements are never constants); any other array as it is.
Result<ArrayPtr> Flat(const ArrayPtr& array);

// The row validity of any array: a constant's is all-valid or all-null, a dictionary's is its
// codes' (a null value behind a valid code is a value, read through the dictionary).
Validity ValidityOf(const Array& array);

}  // namespace rowjit
