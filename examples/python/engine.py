# An engine of one's own: a kernel cache folder, synchronous compiles, threads= and out=.
import tempfile

import numpy as np
import rowjit

with tempfile.TemporaryDirectory() as folder:
    engine = rowjit.Engine(cache_dir=folder, synchronous=True, compile_threads=1)
    a = np.arange(1_000_000, dtype=np.int64)
    out = np.empty_like(a)
    result = engine.evaluate("a * 3 - 1", a=a, out=out, threads=2)   # two chunks, two threads
    print(result is out, out[:4], out[-1])
    print(engine.aggregate("sum(a)", a=a))          # an exact i64 sum, as a Python int
    print(rowjit.evaluate("a + 1", a=a[:3], engine=engine))
    print(sorted(engine.stats()))
