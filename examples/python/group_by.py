# Aggregate queries: several aggregates per group in one pass, WHERE, FILTER, and partial states.
import pickle

import numpy as np
import pandas as pd
import rowjit

frame = pd.DataFrame({
    "shop": ["north", "south", "north", "south", "north", None],
    "price": [4.0, 2.5, 6.0, 1.5, 3.0, 9.0],
    "qty": pd.array([2, 4, None, 2, 1, 3], dtype="Int32"),
})
print(rowjit.aggregate(["sum(qty)", "avg(price)", "count(*)", "max(price) filter (where qty > 1)"],
                       frame, by="shop", where="price < 8"))

g = np.array([1, 2, 1, 2], dtype=np.int8)
x = np.array([10, 20, 30, 40], dtype=np.int32)
print(rowjit.aggregate(["sum(x)", "count(*)"], by="g", g=g, x=x))   # numpy in: a dict of arrays
print(rowjit.aggregate("avg(x)", where="x > 15", x=x))             # one aggregate: a value

state = rowjit.QueryState(["sum(x)", "count(*)"], by="g").fold(g=g[:2], x=x[:2])
other = rowjit.QueryState(["sum(x)", "count(*)"], by="g").fold(g=g[2:], x=x[2:])
state.merge(pickle.loads(pickle.dumps(other)))                     # states travel as bytes
print(state.finish(as_frame=True))
