"""The Arrow PyCapsule protocol in and out (tests). An independent producer and consumer written
here with ctypes straight from the Arrow C Data Interface specification (pyarrow is not a Debian
package) check that rowjit reads foreign arrays, batches and one-chunk streams without copying
them, releases each exactly once, and exports arrays a consumer can read and release itself."""
import ctypes
import gc

import numpy as np
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


class ArrowArrayStream(ctypes.Structure):
    pass


SchemaRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ArrayRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
ArrowSchema._fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
                        ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
                        ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
                        ("dictionary", ctypes.POINTER(ArrowSchema)), ("release", SchemaRelease),
                        ("private_data", ctypes.c_void_p)]
ArrowArray._fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                       ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
                       ("buffers", ctypes.POINTER(ctypes.c_void_p)),
                       ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
                       ("dictionary", ctypes.POINTER(ArrowArray)), ("release", ArrayRelease),
                       ("private_data", ctypes.c_void_p)]
GetSchema = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))
GetNext = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))
GetLastError = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))
StreamRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
ArrowArrayStream._fields_ = [("get_schema", GetSchema), ("get_next", GetNext), ("get_last_error", GetLastError),
                             ("release", StreamRelease), ("private_data", ctypes.c_void_p)]

NULLABLE = 2
SCHEMA_NAME, ARRAY_NAME, STREAM_NAME = b"arrow_schema", b"arrow_array", b"arrow_array_stream"
CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # the dying capsule: a raw pointer
PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, CapsuleDestructor]
PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
PyCapsule_GetPointer.restype = ctypes.c_void_p
PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
# The same call on a raw pointer, for destructors (a dying capsule must not become a py_object).
RawCapsulePointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
PyCapsule_IsValid = ctypes.pythonapi.PyCapsule_IsValid
PyCapsule_IsValid.restype = ctypes.c_int
PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _clear_release(address, struct):
    ctypes.c_void_p.from_address(address + struct.release.offset).value = None


def _drop_capsule(struct, name):
    def drop(capsule):  # the protocol's destructor: release unless a consumer moved the struct out
        s = struct.from_address(RawCapsulePointer(capsule, name))
        if s.release:
            s.release(ctypes.pointer(s))
    return CapsuleDestructor(drop)


FORMATS = {np.dtype(np.int8): b"c", np.dtype(np.uint8): b"C", np.dtype(np.int16): b"s", np.dtype(np.uint16): b"S",
           np.dtype(np.int32): b"i", np.dtype(np.uint32): b"I", np.dtype(np.int64): b"l", np.dtype(np.uint64): b"L",
           np.dtype(np.float32): b"f", np.dtype(np.float64): b"g"}


TYPES = {np.dtype(t): n for t, n in ((np.int8, "i8"), (np.uint8, "u8"), (np.int16, "i16"), (np.uint16, "u16"),
                                     (np.int32, "i32"), (np.uint32, "u32"), (np.int64, "i64"), (np.uint64, "u64"),
                                     (np.float32, "f32"), (np.float64, "f64"))}


class Producer:
    """A foreign Arrow producer: flat arrays over numpy memory (with a validity bitmap when `valid`
    is given, at a row `offset`), or a struct of them (a record batch). Counts its releases."""

    def __init__(self, columns, valid=None, offset=0, batch=False):
        self.columns = columns  # name -> numpy array
        self.valid = valid or {}
        self.offset = offset
        self.batch = batch
        self.released = {"schema": 0, "array": 0}
        self._keep = []
        self._schema_release = SchemaRelease(self._release_schema)
        self._array_release = ArrayRelease(self._release_array)
        self._drop_schema = _drop_capsule(ArrowSchema, SCHEMA_NAME)
        self._drop_array = _drop_capsule(ArrowArray, ARRAY_NAME)

    def _release_schema(self, p):
        self.released["schema"] += 1
        _clear_release(ctypes.addressof(p.contents), ArrowSchema)

    def _release_array(self, p):
        self.released["array"] += 1
        _clear_release(ctypes.addressof(p.contents), ArrowArray)

    def _flat(self, name, values, top):
        bitmap = None
        if name in self.valid:
            bitmap = np.packbits(self.valid[name], bitorder="little")
            self._keep.append(bitmap)
        schema = ArrowSchema(format=FORMATS[values.dtype], name=name.encode(), flags=NULLABLE if bitmap is not None else 0)
        buffers = (ctypes.c_void_p * 2)(bitmap.ctypes.data if bitmap is not None else None, values.ctypes.data)
        nulls = int((~self.valid[name][self.offset:]).sum()) if bitmap is not None else 0
        array = ArrowArray(length=len(values) - self.offset, null_count=nulls, offset=self.offset, n_buffers=2,
                           buffers=buffers)
        if top:  # only the parent's release is called by the consumer; children go with it
            schema.release, array.release = self._schema_release, self._array_release
        else:
            schema.release = SchemaRelease(lambda p: _clear_release(ctypes.addressof(p.contents), ArrowSchema))
            array.release = ArrayRelease(lambda p: _clear_release(ctypes.addressof(p.contents), ArrowArray))
        self._keep += [schema, array, buffers, schema.release, array.release]
        return schema, array

    def structs(self):
        if not self.batch:
            (name, values), = self.columns.items()
            return self._flat(name, values, True)
        kids = [self._flat(n, v, False) for n, v in self.columns.items()]
        schema_kids = (ctypes.POINTER(ArrowSchema) * len(kids))(*[ctypes.pointer(s) for s, _ in kids])
        array_kids = (ctypes.POINTER(ArrowArray) * len(kids))(*[ctypes.pointer(a) for _, a in kids])
        buffers = (ctypes.c_void_p * 1)(None)
        length = len(next(iter(self.columns.values())))
        schema = ArrowSchema(format=b"+s", name=b"", n_children=len(kids), children=schema_kids,
                             release=self._schema_release)
        array = ArrowArray(length=length, n_buffers=1, n_children=len(kids), buffers=buffers, children=array_kids,
                           release=self._array_release)
        self._keep += [schema, array, schema_kids, array_kids, buffers]
        return schema, array

    def __arrow_c_array__(self, requested_schema=None):
        schema, array = self.structs()
        return (PyCapsule_New(ctypes.addressof(schema), SCHEMA_NAME, self._drop_schema),
                PyCapsule_New(ctypes.addressof(array), ARRAY_NAME, self._drop_array))


class StreamProducer:
    """A foreign one-column stream of `chunks` producers (each chunk made by its Producer)."""

    def __init__(self, chunks):
        self.chunks = list(chunks)
        self.released = 0
        self.stream = ArrowArrayStream(get_schema=GetSchema(self._get_schema), get_next=GetNext(self._get_next),
                                       get_last_error=GetLastError(lambda s: None),
                                       release=StreamRelease(self._release))
        self._drop = _drop_capsule(ArrowArrayStream, STREAM_NAME)
        self._next = 0

    def _get_schema(self, stream, out):
        schema, _ = self.chunks[0].structs()
        ctypes.memmove(out, ctypes.addressof(schema), ctypes.sizeof(ArrowSchema))
        _clear_release(ctypes.addressof(schema), ArrowSchema)  # moved to the consumer
        return 0

    def _get_next(self, stream, out):
        if self._next == len(self.chunks):
            ctypes.memset(out, 0, ctypes.sizeof(ArrowArray))  # the end: a released array
            return 0
        _, array = self.chunks[self._next].structs()
        self._next += 1
        ctypes.memmove(out, ctypes.addressof(array), ctypes.sizeof(ArrowArray))
        _clear_release(ctypes.addressof(array), ArrowArray)
        return 0

    def _release(self, stream):
        self.released += 1
        _clear_release(ctypes.addressof(stream.contents), ArrowArrayStream)

    def __arrow_c_stream__(self, requested_schema=None):
        return PyCapsule_New(ctypes.addressof(self.stream), STREAM_NAME, self._drop)


def consume(obj):
    """The independent consumer: moves the array out of obj's capsules, reads its format, values
    and validity, and releases both structs itself."""
    schema_capsule, array_capsule = obj.__arrow_c_array__()
    assert PyCapsule_IsValid(schema_capsule, SCHEMA_NAME) and PyCapsule_IsValid(array_capsule, ARRAY_NAME)
    s = ArrowSchema.from_address(PyCapsule_GetPointer(schema_capsule, SCHEMA_NAME))
    a = ArrowArray.from_address(PyCapsule_GetPointer(array_capsule, ARRAY_NAME))
    fmt = s.format
    dtype = {v: k for k, v in FORMATS.items()}.get(fmt)
    n = a.length
    if fmt == b"b":
        bits = np.ctypeslib.as_array((ctypes.c_uint8 * ((a.offset + n + 7) // 8)).from_address(a.buffers[1]))
        values = np.unpackbits(bits, bitorder="little")[a.offset:a.offset + n].astype(bool)
    else:
        raw = (ctypes.c_uint8 * ((a.offset + n) * dtype.itemsize)).from_address(a.buffers[1]) if n else b""
        values = np.frombuffer(bytes(raw), dtype=dtype)[a.offset:]
    valid = np.ones(n, bool)
    if a.buffers[0]:
        bits = np.ctypeslib.as_array((ctypes.c_uint8 * ((a.offset + n + 7) // 8)).from_address(a.buffers[0]))
        valid = np.unpackbits(bits, bitorder="little")[a.offset:a.offset + n].astype(bool)
    assert a.null_count in (-1, int((~valid).sum()))
    assert bool(s.flags & NULLABLE) or valid.all()
    a.release(ctypes.pointer(a))
    s.release(ctypes.pointer(s))
    assert not a.release and not s.release  # a release marks the struct released
    return fmt, values, valid


@pytest.mark.parametrize("dtype", list(FORMATS))
@pytest.mark.parametrize("offset", [0, 3, 64])
def test_a_foreign_array_in_and_an_arrow_array_out(dtype, offset):
    r = np.random.default_rng(offset)
    values = r.integers(0, 50, 130).astype(dtype)
    valid = r.random(130) < 0.7
    producer = Producer({"a": values}, valid={"a": valid}, offset=offset)
    got = rowjit.evaluate("a * 2 + 1", engine=ENGINE, a=producer)
    assert isinstance(got, rowjit.Array)  # Arrow in: Arrow out
    assert got.type == TYPES[np.dtype(dtype)] + "?"
    gc.collect()
    assert producer.released == {"schema": 1, "array": 1}  # each struct released once, by rowjit
    fmt, out, out_valid = consume(got)
    assert fmt == FORMATS[np.dtype(dtype)]
    np.testing.assert_array_equal(out_valid, valid[offset:])
    want = values[offset:] * dtype.type(2) + dtype.type(1)
    np.testing.assert_array_equal(out[out_valid], want[valid[offset:]])
    as_numpy = got.to_numpy()
    assert isinstance(as_numpy, np.ma.MaskedArray)
    np.testing.assert_array_equal(np.ma.getmaskarray(as_numpy), ~valid[offset:])
    assert not as_numpy.data.flags.writeable


def test_a_foreign_array_is_read_in_place_and_kept_alive_by_what_refers_to_it():
    values = np.arange(100, dtype=np.int64)
    producer = Producer({"a": values})
    arr = rowjit.array(producer)  # imported: its buffers are the producer's memory
    view = arr.to_numpy()
    assert np.shares_memory(view, values)
    assert producer.released["array"] == 0  # held by the rowjit.Array (and the view)
    del arr
    gc.collect()
    assert producer.released["array"] == 0  # the view still refers to it
    np.testing.assert_array_equal(view, values)
    del view
    gc.collect()
    assert producer.released == {"schema": 1, "array": 1}


def test_a_foreign_record_batch_as_the_positional_batch():
    r = np.random.default_rng(7)
    a = r.integers(-100, 100, 200).astype(np.int32)
    b = r.integers(-100, 100, 200).astype(np.int32)
    valid = r.random(200) < 0.8
    producer = Producer({"a": a, "b": b}, valid={"b": valid}, batch=True)
    got = rowjit.evaluate("a * b", producer, engine=ENGINE)
    assert isinstance(got, rowjit.Array) and got.type == "i32?"
    masked = got.to_numpy()
    np.testing.assert_array_equal(np.ma.getmaskarray(masked), ~valid)
    np.testing.assert_array_equal(masked.compressed(), (a * b)[valid])
    gc.collect()
    assert producer.released == {"schema": 1, "array": 1}
    # numpy out on request; filter, project and aggregate over the same kind of batch
    as_numpy = rowjit.evaluate("a + 1", Producer({"a": a, "b": b}, batch=True), arrow=False, engine=ENGINE)
    np.testing.assert_array_equal(as_numpy, a + 1)
    rows = rowjit.filter("a > b", Producer({"a": a, "b": b}, batch=True), engine=ENGINE)
    np.testing.assert_array_equal(rows.to_numpy(), np.nonzero(a > b)[0])
    outs = rowjit.project(["a - b", "a < 0"], Producer({"a": a, "b": b}, batch=True), engine=ENGINE)
    np.testing.assert_array_equal(outs[0].to_numpy(), a - b)
    np.testing.assert_array_equal(outs[1].to_numpy(), a < 0)
    total = rowjit.aggregate("sum(a * b)", Producer({"a": a, "b": b}, valid={"b": valid}, batch=True), engine=ENGINE)
    assert total == int((a.astype(np.int64) * b)[valid].sum())


def test_rowjit_round_trips_through_its_own_capsules():
    a = np.ma.MaskedArray(np.arange(70, dtype=np.int16), mask=np.arange(70) % 5 == 0)
    arr = rowjit.array(a)
    assert (len(arr), arr.type, arr.null_count) == (70, "i16?", 14)
    fmt, values, valid = consume(arr)
    assert fmt == b"s"
    np.testing.assert_array_equal(valid, ~np.ma.getmaskarray(a))
    np.testing.assert_array_equal(values[valid], a.compressed())
    batch = rowjit.record_batch(a=a, b=np.arange(70, dtype=np.int16))
    assert (batch.num_rows, batch.names, batch.schema) == (70, ["a", "b"], "a:i16?, b:i16")
    again = rowjit.evaluate("a + b", batch, engine=ENGINE)
    np.testing.assert_array_equal(again.to_numpy().compressed(), (a + np.arange(70, dtype=np.int16)).compressed())
    assert rowjit.evaluate("a + b", batch, engine=ENGINE, arrow=False).dtype == np.int16
    bools = rowjit.evaluate("a > 30", a=arr, engine=ENGINE)
    fmt, values, valid = consume(bools)
    assert fmt == b"b"
    np.testing.assert_array_equal(values[valid], a.compressed() > 30)
    # a rowjit.Array keeps the numpy memory it shares alive
    x = np.arange(10, dtype=np.float64)
    shared = rowjit.array(x)
    assert np.shares_memory(shared.to_numpy(), x)
    del x
    gc.collect()
    np.testing.assert_array_equal(shared.to_numpy(), np.arange(10, dtype=np.float64))
    # capsules nobody consumes are released by their destructors
    for _ in range(3):
        shared.__arrow_c_array__()
        batch.__arrow_c_schema__()


def test_one_chunk_streams_are_read_and_longer_ones_refused():
    values = np.arange(64, dtype=np.int32)
    stream = StreamProducer([Producer({"a": values})])
    np.testing.assert_array_equal(rowjit.evaluate("a * 3", a=stream, engine=ENGINE).to_numpy(), values * 3)
    gc.collect()
    assert stream.released == 1
    two = StreamProducer([Producer({"a": values}), Producer({"a": values})])
    with pytest.raises(ValueError, match="several chunks"):
        rowjit.evaluate("a * 3", a=two, engine=ENGINE)
    gc.collect()
    assert two.released == 1


def test_bad_capsules_and_mixed_inputs_are_clear_errors():
    class WrongName:
        ignore = CapsuleDestructor(lambda c: None)  # kept alive as long as the capsules may call it

        def __arrow_c_array__(self, requested_schema=None):
            return (PyCapsule_New(1, b"not_a_schema", self.ignore), PyCapsule_New(1, ARRAY_NAME, self.ignore))

    class NotATuple:
        def __arrow_c_array__(self, requested_schema=None):
            return 42

    with pytest.raises(TypeError, match="arrow_schema"):
        rowjit.evaluate("a", a=WrongName(), engine=ENGINE)
    with pytest.raises(TypeError, match="tuple"):
        rowjit.evaluate("a", a=NotATuple(), engine=ENGINE)
    values = np.arange(10, dtype=np.int32)
    with pytest.raises(ValueError, match="valid="):
        rowjit.evaluate("a", a=Producer({"a": values}), valid={"a": np.ones(10, bool)}, engine=ENGINE)
    with pytest.raises(ValueError, match="rows"):
        rowjit.evaluate("a + b", a=Producer({"a": values}), b=np.arange(11, dtype=np.int32), engine=ENGINE)
    with pytest.raises(TypeError):
        rowjit.evaluate("a", 42, engine=ENGINE)
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("a * 1000000000", a=Producer({"a": values}), engine=ENGINE)
    assert (e.value.kind, e.value.row) == ("overflow", 3)
    # an option's name as a column: through the batch dict
    np.testing.assert_array_equal(rowjit.evaluate("threads + 1", {"threads": values}, engine=ENGINE), values + 1)
    with pytest.raises(KeyError):
        rowjit.record_batch(a=values)["zz"]
