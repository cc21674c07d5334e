# Arrow in and out of Python through the PyCapsule protocol, with rowjit.Array and record batches.
import numpy as np
import rowjit

values = np.ma.MaskedArray(np.arange(6, dtype=np.int32), mask=[0, 1, 0, 0, 1, 0])
x = rowjit.array(values)                    # an Arrow producer over numpy's memory (no copy)
print(x, x.type, x.null_count)
schema, array = x.__arrow_c_array__()       # what pyarrow.array(x) or polars would read
print(type(schema).__name__, type(array).__name__)

y = rowjit.evaluate("a + 1", a=x)           # an Arrow input gives an Arrow result
print(y, y.to_numpy())

batch = rowjit.record_batch(a=np.arange(4, dtype=np.int32), b=np.full(4, 3, dtype=np.int32))
print(batch)
print(rowjit.evaluate("a * b", batch))
print(rowjit.evaluate("a * b", batch, arrow=False))   # numpy instead
