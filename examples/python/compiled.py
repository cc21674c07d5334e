# An expression compiled for columns of fixed dtypes, called in a loop over small arrays.
import numpy as np
import rowjit

f = rowjit.compile("a * b + c", a=np.int32, b=np.int32, c=np.int32)
print(f, f.names)
out = np.empty(4, dtype=np.int32)
for start in (0, 4):
    a = np.arange(start, start + 4, dtype=np.int32)
    result = f(a, a, np.ones(4, dtype=np.int32), out)  # the arrays in order, then out (or out=)
    print(result is out, out)
is_near = rowjit.compile("abs(x - y) < 0.5", x=np.float64, y=np.float64)
print(is_near(np.array([1.0, 2.0, 3.0]), np.array([1.2, 3.0, 2.9])))
try:
    f(np.arange(4, dtype=np.int64), a, a)  # not the dtype it was compiled for
except ValueError as e:
    print(e)
try:
    f(np.array([65536], dtype=np.int32), np.array([65536], dtype=np.int32), np.ones(1, dtype=np.int32))
except rowjit.Error as e:
    print(e.kind, e.row)
