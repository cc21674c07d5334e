// Arrow C Data Interface: zero-copy import and export of rowjit arrays (runtime layer).
#pragma once

#include <cstdint>

#include "runtime/array.h"
#include "runtime/arrow_c_abi.h"  // the ABI structs

namespace rowjit {

// Imports one array. Ownership of both structs moves to rowjit, on success and on error alike:
// on return their `release` is null. The schema is released before returning; the array's
// buffers are used in place and its release callback runs exactly once, when the last rowjit
// array or buffer that refers to it is gone. Formats: b c C s S i I l L f g, strings u z U Z
// vu vz (zero-copy in their own layout), dictionary-encoded arrays of those. A nullable field
// needs ARROW_FLAG_NULLABLE; lengths, offsets, string offsets and views, buffer counts, null
// counts and dictionary codes are checked, never trusted.
Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema);

// Imports a struct array (format "+s") as a record batch of its children; same ownership rules.
Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);

// The fields of a struct schema ("+s"), as ImportRecordBatch would type its columns (a
// dictionary-encoded field has its values' type; nullable when the field or its dictionary is
// flagged nullable). The schema is read, not released (the caller keeps it).
Result<Schema> ImportSchema(const ArrowSchema* schema);

// Exports an array. `out` and `out_schema` are filled and owned by the caller, who calls each
// release once. Bitmaps are shared when byte-aligned and copied to offset 0 otherwise; byte-bool
// arrays are packed to bool, constants expanded; dictionaries keep their dictionary.
Status ExportArray(const ArrayPtr& array, ArrowArray* out, ArrowSchema* out_schema,
                   const char* name = "");

// Exports a record batch as a struct array with one child per column.
Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* out_schema);

// The format string of a storage type ("i" for i32, "b" for bool; "" for i128, which has none).
const char* ArrowFormat(TypeId id);
// The format string of a type with its logical kind: "d:12,2", "tdD", "tsu:UTC", "tin", ...
std::string ArrowFormatOf(const DataType& type);

}  // namespace rowjit
