"""numpy arrays and scalars, pandas Series and DataFrames (read back as data: sandbox/harness_data.py),
compared exactly (`array`), within a tolerance (`allclose`), or as pandas.testing does (`frame`). A
mismatch says where: the shapes, the dtypes, the first differing index.

An expected value comes from the reference, or is written in the spec as a mapping:
    expect: {ndarray: [[1, 2], [3, 4]], dtype: int64}
    expect: {series: [1.5, 2.5], index: [a, b], index_name: item, name: price, dtype: float64}
    expect: {dataframe: {city: [Oslo, Rome], people: [700, 2800]}, index: [0, 1], dtypes: {people: int64}}"""

from __future__ import annotations

from grader.checkers.registry import checker
from grader.checkers.shown import show
from grader.model import CheckResult

KINDS = {"ndarray": "a numpy array", "generic": "a numpy scalar", "Series": "a pandas Series",
         "DataFrame": "a pandas DataFrame"}


def is_data(value: object) -> bool:
    """A numpy or pandas value (the grader's own classes: nothing of a reply is anything else)."""
    module = type(value).__module__
    return module.startswith("numpy") or module.startswith("pandas")


def _kind(value: object) -> str:
    import numpy

    if isinstance(value, numpy.ndarray):
        return "ndarray"
    if isinstance(value, numpy.generic):
        return "generic"
    name = type(value).__name__
    return name if name in ("Series", "DataFrame") and is_data(value) else ""


def from_spec(value: object) -> object:
    """A spec's written mapping as the numpy or pandas value it describes; anything else as it is."""
    if not isinstance(value, dict):
        return value
    import numpy

    if "ndarray" in value:
        return numpy.array(value["ndarray"], dtype=value.get("dtype"))
    if "series" in value or "dataframe" in value:
        import pandas

        index = pandas.Index(value["index"], name=value.get("index_name")) if "index" in value else None
        if "series" in value:
            return pandas.Series(value["series"], index=index, name=value.get("name"), dtype=value.get("dtype"))
        frame = pandas.DataFrame(value["dataframe"], index=index)
        return frame.astype(value["dtypes"]) if value.get("dtypes") else frame
    return value


_WRITTEN_KINDS = "biufUS"  # dtypes whose items YAML writes and reads back exactly: numbers, booleans, text


def to_spec(value: object) -> dict[str, object] | None:
    """The mapping from_spec reads back as `value` (an exported spec's expect); None for a value of another
    kind, or of a dtype a spec cannot write (dates, objects, categories)."""
    kind = _kind(value) if is_data(value) else ""
    if kind == "ndarray":
        return {"ndarray": value.tolist(), "dtype": str(value.dtype)} if value.dtype.kind in _WRITTEN_KINDS else None  # type: ignore[attr-defined]
    if kind not in ("Series", "DataFrame"):
        return None
    index = value.index  # type: ignore[attr-defined]
    if index.dtype.kind not in _WRITTEN_KINDS + "O" or getattr(index, "nlevels", 1) != 1:
        return None
    written: dict[str, object] = {"index": index.tolist()}
    if index.name is not None:
        written["index_name"] = index.name
    if kind == "Series":
        if value.dtype.kind not in _WRITTEN_KINDS:  # type: ignore[attr-defined]
            return None
        return {"series": value.tolist(), **written, "name": value.name, "dtype": str(value.dtype)}  # type: ignore[attr-defined]
    columns = list(value.columns)  # type: ignore[attr-defined]
    if not all(isinstance(c, str) for c in columns) or not all(value[c].dtype.kind in _WRITTEN_KINDS + "O"  # type: ignore[index]
                                                             for c in columns):
        return None
    return {"dataframe": {c: value[c].tolist() for c in columns}, **written,  # type: ignore[index]
            "dtypes": {c: str(value[c].dtype) for c in columns}}  # type: ignore[index]


def _shape_and_type(expected: object, actual: object, check_dtype: bool) -> str | None:
    """Why the two cannot be equal whatever their values: kind, shape, dtype; None when they may be."""
    want, got = _kind(expected), _kind(actual)
    if want != got:
        got_text = KINDS.get(got) or f"a {type(actual).__name__}"
        return f"expected {KINDS.get(want, 'a ' + type(expected).__name__)}, got {got_text}: {show(actual, 60)}"
    shape_e, shape_a = getattr(expected, "shape", ()), getattr(actual, "shape", ())
    if shape_e != shape_a:
        return f"expected shape {shape_e}, got shape {shape_a}"
    if check_dtype and want in ("ndarray", "generic") and _native(expected.dtype) != _native(actual.dtype):  # type: ignore[attr-defined]
        return f"expected dtype {expected.dtype}, got dtype {actual.dtype}"  # type: ignore[attr-defined]
    return None


def _native(dtype):  # type: ignore[no-untyped-def]
    """A dtype whatever its byte order: >i8 and <i8 hold the same numbers."""
    return dtype.newbyteorder("=")


def _first_index(mismatch) -> str:  # type: ignore[no-untyped-def]
    """The first position where a boolean mask of differences is true, as an index: (1, 2) or 3."""
    import numpy

    where = numpy.argwhere(mismatch)
    count = len(where)
    first = tuple(int(i) for i in where[0]) if count else ()
    return (str(first[0]) if len(first) == 1 else str(first)), count


def _compare_arrays(expected, actual, close: bool, rtol: float, atol: float, equal_nan: bool) -> str | None:  # type: ignore[no-untyped-def]
    import numpy

    want, got = numpy.asarray(expected), numpy.asarray(actual)
    numeric = want.dtype.kind in "biufc" and got.dtype.kind in "biufc"
    if close and numeric:
        same = numpy.isclose(got, want, rtol=rtol, atol=atol, equal_nan=equal_nan)
    elif numeric and want.dtype.kind in "fc":
        same = (want == got) | (numpy.isnan(want) & numpy.isnan(got)) if equal_nan else want == got
    else:
        same = numpy.asarray(want == got, dtype=bool) if want.shape == got.shape else numpy.zeros(want.shape, bool)
    if numpy.all(same):
        return None
    mismatch = ~numpy.asarray(same, dtype=bool)
    if mismatch.ndim == 0:
        return f"expected {show(_item(want), 40)}, got {show(_item(got), 40)}"
    index, count = _first_index(mismatch)
    position = tuple(numpy.argwhere(mismatch)[0])
    how = f" (within rtol={rtol:g}, atol={atol:g})" if close else ""
    return (f"{count} of {want.size} items differ{how}; the first at index {index}: expected "
            f"{show(_item(want[position]), 40)}, got {show(_item(got[position]), 40)}")


def _item(value: object) -> object:
    """A numpy item as Python shows it (1.5, not np.float64(1.5)); text and objects as they are."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


def _compare(expected: object, actual: object, close: bool, rtol: float, atol: float, check_dtype: bool,
             equal_nan: bool) -> CheckResult:
    expected = from_spec(expected)
    problem = _shape_and_type(expected, actual, check_dtype)
    if problem is None and _kind(expected) in ("Series", "DataFrame"):
        return _pandas_check(expected, actual, rtol=rtol, atol=atol, check_exact=not close, check_dtype=check_dtype)
    if problem is None:
        try:
            problem = _compare_arrays(expected, actual, close, rtol, atol, equal_nan)
        except (ValueError, TypeError, IndexError, OverflowError) as error:  # an answer numpy cannot line up
            problem = f"the answer cannot be compared with the expected {_kind(expected)}: {type(error).__name__}"
    return CheckResult(passed=True) if problem is None else CheckResult(passed=False, feedback=problem)


@checker("array")
def array(expected: object, actual: object, check_dtype: bool = True, equal_nan: bool = True) -> CheckResult:
    """The same kind (array, scalar, Series, DataFrame), shape, dtype (unless `check_dtype: false`) and
    values exactly; nan equals nan in the same place (unless `equal_nan: false`)."""
    return _compare(expected, actual, False, 0.0, 0.0, check_dtype, equal_nan)


@checker("allclose")
def allclose(expected: object, actual: object, rtol: float = 1e-05, atol: float = 1e-08,
             check_dtype: bool = False, equal_nan: bool = True) -> CheckResult:
    """numpy.isclose item by item: |actual - expected| <= atol + rtol x |expected|; shapes must match, dtypes
    only with `check_dtype: true` (an int array may answer for a float one)."""
    return _compare(expected, actual, True, rtol, atol, check_dtype, equal_nan)


@checker("frame")
def frame(expected: object, actual: object, check_index: bool = True, check_column_order: bool = True,
          check_dtype: bool = True, check_names: bool = True, check_exact: bool = False, rtol: float = 1e-05,
          atol: float = 1e-08) -> CheckResult:
    """pandas.testing.assert_frame_equal (or assert_series_equal) with its options: `check_index: false`
    compares by position, `check_column_order: false` matches columns by name (check_like)."""
    expected = from_spec(expected)
    want, got = _kind(expected), _kind(actual)
    if want not in ("Series", "DataFrame") or want != got:
        return CheckResult(passed=False, feedback=_shape_and_type(expected, actual, False)
                           or "the spec's expected value is no Series or DataFrame")
    return _pandas_check(expected, actual, check_index=check_index, check_column_order=check_column_order,
                         check_dtype=check_dtype, check_names=check_names, check_exact=check_exact, rtol=rtol,
                         atol=atol)


def _pandas_check(expected, actual, check_index: bool = True, check_column_order: bool = True,  # type: ignore[no-untyped-def]
                  check_dtype: bool = True, check_names: bool = True, check_exact: bool = True,
                  rtol: float = 1e-05, atol: float = 1e-08) -> CheckResult:
    import pandas
    import pandas.testing

    if not check_index:
        expected, actual = expected.reset_index(drop=True), actual.reset_index(drop=True)
    if isinstance(expected, pandas.DataFrame) and set(expected.columns) != set(actual.columns):
        missing = [c for c in expected.columns if c not in set(actual.columns)]
        extra = [c for c in actual.columns if c not in set(expected.columns)]
        parts = ([f"missing columns {show(missing, 60)}"] if missing else []) + \
                ([f"extra columns {show(extra, 60)}"] if extra else [])
        return CheckResult(passed=False, feedback="; ".join(parts))
    options = {"check_dtype": check_dtype, "check_names": check_names, "check_exact": check_exact}
    if not check_exact:
        options.update(rtol=rtol, atol=atol)
    try:
        if isinstance(expected, pandas.DataFrame):
            pandas.testing.assert_frame_equal(actual, expected, check_like=not check_column_order, **options)
        else:
            pandas.testing.assert_series_equal(actual, expected, **options)
    except AssertionError as error:
        return CheckResult(passed=False, feedback=_where(expected, actual, check_exact, rtol, atol),
                           details=_pandas_words(str(error)))
    return CheckResult(passed=True)


def _where(expected, actual, exact: bool, rtol: float, atol: float) -> str:  # type: ignore[no-untyped-def]
    """The first difference of two frames or series in a student's words: the index, the column, the dtype."""
    import pandas

    if not expected.index.equals(actual.index):
        first = next((i for i, (w, g) in enumerate(zip(expected.index, actual.index)) if w != g),
                     min(len(expected.index), len(actual.index)))
        return f"the index differs at row {first}: expected {show(expected.index[first:first + 1].tolist(), 40)}, " \
               f"got {show(actual.index[first:first + 1].tolist(), 40)}"
    columns = list(expected.columns) if isinstance(expected, pandas.DataFrame) else [None]
    if isinstance(expected, pandas.DataFrame) and list(actual.columns) != columns:
        return f"the columns come in another order: expected {show(columns, 60)}, got {show(list(actual.columns), 60)}"
    for column in columns:
        want = expected if column is None else expected[column]
        got = actual if column is None else actual[column]
        at = "" if column is None else f" in column {column!r}"
        if want.dtype != got.dtype:
            return f"expected dtype {want.dtype}{at}, got {got.dtype}"
        problem = _compare_arrays(want.to_numpy(), got.to_numpy(), not exact, rtol, atol, True)
        if problem:
            return problem.replace("; the first at index", f"{at}; the first at row") if at else problem
    return "the names or attributes differ (see the details)"


def _pandas_words(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.strip())[:2000]
