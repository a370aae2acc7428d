"""Part of the sandbox's harness (see harness.py; sent as one text with it): numpy arrays and scalars, pandas
Series and DataFrames as tagged data, never pickled. Only when the submission imported them (the modules are
looked up, never imported here), and only for their exact classes:
    {"$nd": [dtype, shape, payload]}   payload: for bool, int, uint, float and complex, the raw little-endian
                                        bytes: an int, their offset in the result's binary part (see
                                        frame_parts), or base64 text; else a list of the items as plain data
    {"$lf": offset, count} / {"$li": ...}   a list of a million floats (ints): float64 (int64) raw bytes
    {"$ln": [dtype, offset, count]}    a long list of numpy numbers of one type (`list(array)`): raw bytes
    {"$ns": [dtype, item]}             a numpy scalar
    {"$pi": [dtype, name, items]}      a pandas Index (items as plain data)
    {"$ps": [name, index, dtype, values]}          a Series (values: an "$nd" payload)
    {"$pf": [columns, index, [[dtype, values]...]]}  a DataFrame, column by column
A matplotlib Figure or Axes goes back as its data (figure_data): plain lists and dicts, compared as such.
Uses the names harness.py defines; imports nothing from grader."""

_RAW_KINDS = "biufc"


def data_literal(value, kind, depth):
    """The tagged text of a numpy or pandas value, a matplotlib figure's data; None when `value` is none."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    figures = sys.modules.get("matplotlib.figure")
    if figures is not None and kind in (figures.Figure, getattr(sys.modules.get("matplotlib.axes"), "Axes", None)):
        return literal(figure_data(numpy, value, figures), depth)
    if kind is numpy.ndarray:
        return '{"$nd": ' + array_payload(numpy, value, depth) + "}"
    if isinstance(value, numpy.generic) and type(value).__module__ == "numpy":
        dtype = value.dtype
        if dtype.kind in _RAW_KINDS and dtype.kind != "c" or dtype.kind in "US":
            return '{"$ns": [' + _json_str(dtype.str) + ", " + literal(value.item(), depth + 1) + "]}"
        return '{"$ns": [' + _json_str(dtype.str) + ", " + _json_str(str(value)) + "]}"
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return None
    if kind is pandas.Series:
        return ('{"$ps": [' + literal(value.name, depth + 1) + ", " + index_literal(pandas, value.index, depth)
                + ", " + _json_str(str(value.dtype)) + ", " + array_payload(numpy, value.to_numpy(), depth) + "]}")
    if kind is pandas.DataFrame:
        columns = []
        for position in range(value.shape[1]):
            column = value.iloc[:, position]
            columns.append("[" + _json_str(str(column.dtype)) + ", " + array_payload(numpy, column.to_numpy(), depth)
                           + "]")
        return ('{"$pf": [' + index_literal(pandas, value.columns, depth) + ", "
                + index_literal(pandas, value.index, depth) + ", [" + ", ".join(columns) + "]]}")
    if isinstance(value, pandas.Index) and type(value).__module__.startswith("pandas."):
        return index_literal(pandas, value, depth)
    return None


def array_payload(numpy, array, depth):
    """[dtype, shape, payload] of an array: its bytes when they are plain numbers, else its items."""
    dtype = array.dtype
    shape = "[" + ", ".join(_repr_int(int(n)) for n in array.shape) + "]"
    if dtype.kind in _RAW_KINDS:
        little = numpy.ascontiguousarray(array.astype(dtype.newbyteorder("<"), copy=False))
        if _blobs is not None:  # a test's result: its bytes as they are, after the text (frame_parts)
            flat = little.reshape(-1) if little.nbytes else b""  # a view of it, of one dimension (or nothing)
            return "[" + _json_str(little.dtype.str) + ", " + shape + ", " + _repr_int(attach(flat, little.nbytes)) + "]"
        import binascii

        data = little.tobytes()
        # Base64's alphabet needs no JSON escape: quoted as it is, not scanned again (20 ms a million floats).
        return ("[" + _json_str(little.dtype.str) + ", " + shape + ', "'
                + binascii.b2a_base64(data, newline=False).decode("ascii") + '"]')
    if dtype.kind in "Mm":  # dates and durations: their text, which numpy reads back exactly
        items = [str(item) for item in array.ravel().astype(str).tolist()]
    else:
        items = array.ravel().tolist()
    return "[" + _json_str(dtype.str) + ", " + shape + ", " + literal(items, depth + 1) + "]"


def index_literal(pandas, index, depth):
    items = index.tolist()
    if index.dtype.kind in "Mm":
        items = [str(item) for item in index.astype(str).tolist()]
    return ('{"$pi": [' + _json_str(str(index.dtype)) + ", " + literal(index.name, depth + 1) + ", "
            + literal(items, depth + 1) + "]}")


def figure_data(numpy, figure, figures):
    """What a test checks of a plot (never its pixels): per axes its title, axis labels and each line's
    label and points, as plain data: {"axes": [{"title", "xlabel", "ylabel", "lines": [{"label", "x", "y"}]}]}."""
    axes = figure.axes if type(figure) is figures.Figure else [figure]
    shown = []
    for ax in axes:
        lines = []
        for line in ax.get_lines():
            xs, ys = (numpy.asarray(data).tolist() for data in (line.get_xdata(), line.get_ydata()))
            lines.append({"label": str(line.get_label()), "x": xs, "y": ys})
        shown.append({"title": str(ax.get_title()), "xlabel": str(ax.get_xlabel()), "ylabel": str(ax.get_ylabel()),
                      "lines": lines})
    return {"axes": shown}
