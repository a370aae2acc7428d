"""numpy and pandas values read back from the sandbox's tagged data (see sandbox/harness_data.py): checked
field by field and rebuilt with the grader's own numpy and pandas, never unpickled. The dtypes allowed are
plain ones: numbers from raw bytes (never objects), text, dates; anything else is refused as unreadable."""

from __future__ import annotations

import re
from typing import Protocol

from grader.model import Opaque


class Binary(Protocol):
    """A reply's binary part as sandbox/wire.py hands it out (its Binary): named here by what is used of it,
    since the wire imports this module (lazily, at the first numpy value) and not the other way round."""

    def take(self, offset: int, size: int) -> memoryview: ...

# Raw bytes are read only as these kinds: an 'O' (object) dtype over raw bytes would be pointers.
_RAW = re.compile(r"^[<|][biufc]\d{1,2}$")
_ITEMS = re.compile(r"^[<>|=]?(?:[USO]\d*|[Mm]8(?:\[\d*[a-zA-Z]{1,2}\])?|[biuf]\d{1,2})$")
_PANDAS_DTYPE = re.compile(r"^[A-Za-z][A-Za-z0-9_\[\], :/+-]{0,60}$")
ITEMS_CAP = 50_000_000  # numbers in one array: more than a reply can carry anyway


def _numpy():  # type: ignore[no-untyped-def]
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _pandas():  # type: ignore[no-untyped-def]
    try:
        import pandas
    except ImportError:
        return None
    return pandas


MISSING_NUMPY = "numpy value (the grader needs numpy and pandas to compare it: pip install 'grader[data]')"


def array(fields: object, blobs: Binary | None = None) -> object:
    """An ndarray from [dtype, shape, payload]; a payload that is an int is the offset of its raw bytes in
    the reply's binary part (`blobs`: each byte handed out once), viewed in place, never copied."""
    numpy = _numpy()
    if numpy is None:
        return Opaque(f"numpy.ndarray: {MISSING_NUMPY}")
    if type(fields) is not list or len(fields) != 3:
        raise ValueError("an array is [dtype, shape, payload]")
    dtype, shape, payload = fields
    if type(shape) is not list or not all(type(n) is int and 0 <= n <= ITEMS_CAP for n in shape) or len(shape) > 32:
        raise ValueError("an array's shape is a list of sizes")
    count = 1
    for n in shape:
        count *= n
    if count > ITEMS_CAP:
        raise ValueError("an array too large")
    if type(dtype) is not str:
        raise ValueError("an array's dtype is a str")
    if type(payload) is int:
        if not _RAW.match(dtype) or blobs is None:
            raise ValueError("raw bytes only for numbers, in the binary part")
        kind = numpy.dtype(dtype)
        data = numpy.frombuffer(blobs.take(payload, count * kind.itemsize), dtype=kind).reshape(shape)
        return data if kind.isnative else data.astype(kind.newbyteorder("="))
    if type(payload) is str:
        if not _RAW.match(dtype):
            raise ValueError("raw bytes only for numbers")
        import binascii

        data = binascii.a2b_base64(payload)
        kind = numpy.dtype(dtype)
        if len(data) != count * kind.itemsize:
            raise ValueError("an array's bytes do not match its shape")
        return numpy.frombuffer(data, dtype=kind).reshape(shape).astype(kind.newbyteorder("="))
    if type(payload) is not list or len(payload) != count or not _ITEMS.match(dtype):
        raise ValueError("an array's items do not match its shape or dtype")
    kind = numpy.dtype(dtype)
    result = numpy.empty(count, dtype=kind)
    if kind.kind == "O":
        result[:] = payload if count else result
    else:
        result[:] = numpy.array(payload, dtype=kind) if count else result
    return result.reshape(shape)


def scalar(fields: object, blobs: Binary | None = None) -> object:
    numpy = _numpy()
    if numpy is None:
        return Opaque(f"numpy scalar: {MISSING_NUMPY}")
    if type(fields) is not list or len(fields) != 2 or type(fields[0]) is not str or not _ITEMS.match(fields[0]):
        raise ValueError("a numpy scalar is [dtype, item]")
    dtype, item = fields
    if type(item) not in (bool, int, float, str):
        raise ValueError("a numpy scalar's item is a number or text")
    return numpy.array([item], dtype=numpy.dtype(dtype))[0]


def scalars(fields: object, blobs: Binary | None = None) -> object:
    """A list of numpy numbers of one dtype from [dtype, offset, count] in the binary part: `list(array)`."""
    numpy = _numpy()
    if numpy is None:
        return Opaque(f"list of numpy scalars: {MISSING_NUMPY}")
    if type(fields) is not list or len(fields) != 3:
        raise ValueError("a list of numpy scalars is [dtype, offset, count]")
    dtype, offset, count = fields
    if type(dtype) is not str or not _RAW.match(dtype) or dtype[1] == "c" or blobs is None:
        raise ValueError("a list of numpy scalars is of numbers, in the binary part")
    if type(count) is not int or not 0 <= count <= ITEMS_CAP:
        raise ValueError("a list of numpy scalars too large")
    kind = numpy.dtype(dtype)
    data = numpy.frombuffer(blobs.take(offset, count * kind.itemsize), dtype=kind)
    return list(data if kind.isnative else data.astype(kind.newbyteorder("=")))


def index(fields: object, blobs: Binary | None = None) -> object:
    pandas = _pandas()
    if pandas is None:
        return Opaque(f"pandas.Index: {MISSING_NUMPY}")
    if type(fields) is not list or len(fields) != 3 or type(fields[2]) is not list:
        raise ValueError("an index is [dtype, name, items]")
    dtype, name, items = fields
    return _typed(pandas.Index(items, name=_label(name), tupleize_cols=False), dtype)


def series(fields: object, blobs: Binary | None = None) -> object:
    pandas = _pandas()
    if pandas is None:
        return Opaque(f"pandas.Series: {MISSING_NUMPY}")
    if type(fields) is not list or len(fields) != 4:
        raise ValueError("a series is [name, index, dtype, values]")
    name, labels, dtype, values = fields
    if not isinstance(labels, pandas.Index):
        raise ValueError("a series's index is an index")
    data = array(values, blobs)
    if len(data.shape) != 1 or len(data) != len(labels):
        raise ValueError("a series's values do not match its index")
    return _typed(pandas.Series(data, index=labels, name=_label(name), copy=False), dtype)


def frame(fields: object, blobs: Binary | None = None) -> object:
    pandas = _pandas()
    if pandas is None:
        return Opaque(f"pandas.DataFrame: {MISSING_NUMPY}")
    if type(fields) is not list or len(fields) != 3:
        raise ValueError("a frame is [columns, index, [[dtype, values], ...]]")
    columns, labels, data = fields
    if not (isinstance(columns, pandas.Index) and isinstance(labels, pandas.Index) and type(data) is list
            and len(data) == len(columns)):
        raise ValueError("a frame's columns do not match its data")
    built = {}
    for position, column in enumerate(data):
        if type(column) is not list or len(column) != 2:
            raise ValueError("a frame's column is [dtype, values]")
        values = array(column[1], blobs)
        if len(values.shape) != 1 or len(values) != len(labels):
            raise ValueError("a frame's column does not match its index")
        built[position] = _typed(pandas.Series(values, index=labels, copy=False), column[0])
    result = pandas.DataFrame(built, index=labels)
    result.columns = columns
    return result


def _label(name: object) -> object:
    if name is not None and type(name) not in (str, int, float, bool, tuple):
        raise ValueError("a label is plain data")
    return name


def _typed(values, dtype: object):  # type: ignore[no-untyped-def]
    """`values` as the dtype pandas named (category, str, Int64...), when it is a plain dtype name."""
    if type(dtype) is not str or not _PANDAS_DTYPE.match(dtype):
        raise ValueError("a dtype is named by a plain str")
    if str(values.dtype) == dtype:
        return values
    try:
        return values.astype(dtype)
    except Exception as error:  # noqa: BLE001 - an extension dtype may need a package the grader lacks
        raise ValueError(f"dtype {dtype!r} does not convert ({type(error).__name__}: {str(error)[:200]})") from None


TAGS = {"$nd": array, "$ns": scalar, "$ln": scalars, "$pi": index, "$ps": series, "$pf": frame}
NAMES = {"$nd": "numpy array", "$ns": "numpy scalar", "$ln": "list of numpy numbers", "$pi": "pandas Index",
         "$ps": "pandas Series", "$pf": "pandas DataFrame"}
