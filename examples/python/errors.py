# Errors in an expression's text: the message shows where the error is, .span and .text say it
# in code, an unknown name gets the nearest known one, and an engine can bind strictly.
import numpy as np
import pandas as pd
import rowjit

a = np.arange(3, dtype=np.int32)
try:
    rowjit.evaluate("sqroot(a)", a=a)
except rowjit.Error as e:
    print(e)
    offset, length = e.span                      # characters of e.text
    print(e.kind, e.span, e.text[offset:offset + length])

frame = pd.DataFrame({"price": [1.5, 2.0, 2.5], "qty": [3, 1, 2], "label": ["x", "y", "z"]})
try:
    rowjit.evaluate("price * qnty", frame)      # suggested from every column of the frame
except rowjit.Error as e:
    print(e)

price = frame["price"].to_numpy()
print(rowjit.evaluate("a + price", a=a, price=price))    # i32 + f64: f64 arithmetic
strict = rowjit.Engine(implicit_casts=False)
try:
    strict.evaluate("a + price", a=a, price=price)
except rowjit.Error as e:
    print(e)
print(strict.evaluate("cast(a, f64) + price", a=a, price=price))
