"""pandas in and out of rowjit (python layer): Series and DataFrame columns as the numpy arrays the
module reads (pandas' nullable dtypes as masked arrays, pd.NA and None as null), and results back
as Series with pandas' nullable dtypes. The one place both rowjit and rowjit.dask convert pandas.
pandas is imported only when a pandas object is met."""
import numpy as np


def is_pandas(value):
    """Whether `value` is a pandas object (checked without importing pandas)."""
    return type(value).__module__.startswith("pandas.")


def is_frame(value):
    if not is_pandas(value):
        return False
    import pandas as pd
    return isinstance(value, pd.DataFrame)


def is_series(value):
    if not is_pandas(value):
        return False
    import pandas as pd
    return isinstance(value, (pd.Series, pd.Index))


def _strings(values, missing):
    """An object array of str (or bytes) with None where `missing`: always masked, so that the
    column is nullable whatever its rows hold (pandas reads NaN, None and pd.NA as missing)."""
    values = np.asarray(values, dtype=object)
    if missing.any():
        values = values.copy()
        values[missing] = None
    return np.ma.MaskedArray(values, mask=missing)


def column(series, name):
    """One pandas column as a numpy array rowjit reads (no copy where pandas' memory allows):
    nullable extension dtypes (Int8..UInt64, Float32/64, boolean) as masked arrays over their own
    data and mask, string and object columns as object arrays of str with None where missing,
    datetime64/timedelta64 with NaT as null, categoricals as their values."""
    import pandas as pd
    array = series.array if isinstance(series, pd.Series) else series._values
    dtype = series.dtype
    if isinstance(array, pd.core.arrays.masked.BaseMaskedArray):  # Int32, Float64, boolean, ...
        return np.ma.MaskedArray(array._data, mask=array._mask)
    if isinstance(dtype, pd.CategoricalDtype):
        codes = np.asarray(array.codes)
        values = np.asarray(array.categories)[np.maximum(codes, 0)]
        if values.dtype == object:
            return _strings(values, codes < 0)
        return np.ma.MaskedArray(values, mask=codes < 0)
    if isinstance(dtype, pd.DatetimeTZDtype):
        raise TypeError(f"rowjit: column '{name}' has a time zone ({dtype}); numpy timestamps have none: "
                        f"pass .dt.tz_convert(None) (UTC) or .dt.tz_localize(None) (local times)")
    if isinstance(dtype, pd.StringDtype) or dtype == object:
        return _strings(array.to_numpy(dtype=object) if dtype != object else np.asarray(array), np.asarray(pd.isna(array)))
    values = np.asarray(array)
    if values.dtype.kind in "Mm":  # NaT: null, and the column nullable whatever its rows hold
        return np.ma.MaskedArray(values, mask=np.isnat(values))
    if values.dtype.kind not in "biuf":
        raise TypeError(f"rowjit: column '{name}' has dtype {dtype}, which rowjit does not read")
    return values


def frame_columns(frame, names=None):
    """The columns `names` of a DataFrame (every column when None) as numpy arrays, by name. A
    name that is not a column is left out (the expression's binder reports it)."""
    out = {}
    labels = {str(label): label for label in frame.columns}
    for name in labels if names is None else names:
        if name in labels:
            out[name] = column(frame[labels[name]], name)
    return out


def to_series(result, index, name=None):
    """A result as a pandas Series over `index`: masked arrays (nullable results) with pandas'
    nullable dtype (Int32, UInt8, Float64, boolean, string), datetime64 with NaT where null,
    other numpy arrays with their own dtype."""
    import pandas as pd
    if not isinstance(result, np.ma.MaskedArray):
        return pd.Series(result, index=index, name=name)
    values, mask = np.ma.getdata(result), np.ma.getmaskarray(result)
    kind = values.dtype.kind
    if kind == "b":
        array = pd.arrays.BooleanArray(values, mask)
    elif kind == "f":
        array = pd.arrays.FloatingArray(values, mask)
    elif kind in "iu":
        array = pd.arrays.IntegerArray(values, mask)
    elif kind in "Mm":
        array = values.copy()
        array[mask] = np.array("NaT", dtype=values.dtype)
    elif kind == "O" and all(isinstance(v, str) for v in values[~mask][:1]):
        array = pd.array(values, dtype="string")
    else:
        array = values
    return pd.Series(array, index=index, name=name)
