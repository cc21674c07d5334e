# The Python module in one sitting: evaluate, nulls, filter, project, aggregate and errors.
import numpy as np
import rowjit

a = np.arange(8, dtype=np.int32)
b = np.full_like(a, 3)
c = np.ones_like(a)
print(rowjit.evaluate("a * b + c", a=a, b=b, c=c))

am = np.ma.MaskedArray(a[:6], mask=[0, 1, 0, 0, 1, 0])    # mask True: null
print(rowjit.evaluate("a * 2", a=am))
print(rowjit.evaluate("a * 2", a=a[:6], valid={"a": ~am.mask}))  # valid True: not null

print(rowjit.filter("a % 3 = 0", a=a))                      # uint32 row indices
print(rowjit.project(["a * b", "a * b > c + 10"], a=a, b=b, c=c))
print(rowjit.aggregate("sum(a * b)", a=a, b=b), rowjit.aggregate("min_max(a)", a=am))

try:
    rowjit.evaluate("a * 1000000000", a=a)
except rowjit.Error as e:
    print(e, "|", e.kind, e.row, e.function)
