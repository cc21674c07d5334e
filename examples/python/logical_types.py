# Strings, dates, timestamps, durations, intervals and decimals from Python.
import numpy as np
import rowjit

s = np.array(["apple", "Banana", None, "cherry pie"], dtype=object)   # None: null
print(rowjit.evaluate("upper(s)", s=s))
print(rowjit.evaluate("s like '%an%' or length(s) > 6", s=s))

t = np.array(["2024-01-31T10:00", "2024-02-29T23:30", "2024-03-01"], dtype="datetime64[us]")
u = np.array(["2024-01-31T08:30", "2024-02-28T23:30", "NaT"], dtype="datetime64[us]")  # NaT: null
print(rowjit.evaluate("t + '1 month'", t=t).astype("datetime64[m]"))
print(rowjit.evaluate("(t - u) / '1 hour'", t=t, u=u))
print(rowjit.evaluate("year(t) * 100 + month(t)", t=t))
print(rowjit.aggregate("sum(t - u)", t=t, u=u))

i = np.zeros(2, dtype=rowjit.interval_dtype("month_day_nano"))
i["months"], i["days"] = [1, 0], [0, 30]
print(rowjit.evaluate("i = '30 days'", i=i))          # a month compares as 30 days

price = np.array(["19.99", "2.50", "0.05"], dtype=object)
print(rowjit.evaluate("cast(round(cast(p, decimal64(12,2)) * 1.07, 2), utf8)", p=price))
print(rowjit.aggregate("sum(cast(p, decimal64(12,2)))", p=price))
