# pandas with rowjit: a DataFrame as the batch, nullable dtypes, scalars and names from the caller.
import numpy as np
import pandas as pd
import rowjit

frame = pd.DataFrame({
    "price": [1.5, 2.0, 4.0, 8.0],
    "qty": pd.array([2, None, 3, 1], dtype="Int32"),        # pd.NA: null
    "item": ["tea", "jam", None, "figs"],                    # None: null
}, index=pd.Index([101, 102, 103, 104], name="order"))

print(rowjit.evaluate("price * cast(qty, f64)", frame))     # a Series over the frame's index
print(rowjit.evaluate("upper(item) || '!'", frame).tolist())
print(rowjit.filter("price > 1.9 and qty >= 1", frame))     # the rows kept

discount = 0.25                                              # a scalar: a constant
print(rowjit.evaluate("price * (1 - discount)", frame).tolist())   # found in the caller's locals
print(rowjit.evaluate("qty * k", frame, k=np.int32(10)).tolist())  # a numpy scalar keeps its dtype
print(rowjit.aggregate("sum(price * cast(qty, f64))", frame))

try:
    rowjit.evaluate("price * 2", frame, thread=2)
except TypeError as e:
    print(e)
