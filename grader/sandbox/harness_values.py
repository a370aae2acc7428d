"""Part of the sandbox's harness (see harness.py; sent to the sandbox as one text with it, right after it): a
value as tagged JSON text, read by the grader with json.loads (see harness.py's docstring for the tags);
numpy and pandas values are harness_data.py's. Uses the names harness.py defines; imports nothing from grader."""


def literal(value, depth=0, iterate=True):
    """Plain data as tagged JSON text; only exact built-in types, so no student __repr__ runs. With
    `iterate` False, no iterable that is not plain data is read (an exception's argument, read while the
    exception is described): it goes as its type's name, as if it were any object."""
    if depth > 200:
        raise ValueError("the value is nested too deeply")
    kind = type(value)
    if value is None or kind is bool:
        return "true" if value is True else "false" if value is False else "null"
    if kind is int:
        return _repr_int(value)
    if kind is float:
        if value != value:
            return "NaN"  # judged in the grader: nan equals nothing unless a checker says so
        return "Infinity" if value == float("inf") else "-Infinity" if value == float("-inf") else _repr_float(value)
    if kind is str:
        return _json_str(value)
    if kind is bytes:
        return '{"$b": ' + _json_str(value.decode("latin-1")) + "}"
    if kind is list:
        if _blobs is not None and len(value) >= RAW_LIST:
            raw = raw_list(value)
            if raw is not None:
                return raw
        return "[" + ", ".join(literal(item, depth + 1, iterate) for item in value) + "]"
    if kind is tuple:
        return '{"$t": [' + ", ".join(literal(item, depth + 1, iterate) for item in value) + "]}"
    if kind is set or kind is frozenset:
        return '{"$s": [' + ", ".join(sorted(literal(item, depth + 1, iterate) for item in value)) + "]}"
    if kind is dict:
        pairs = ("[" + literal(k, depth + 1, iterate) + ", " + literal(v, depth + 1, iterate) + "]" for k, v in value.items())
        return '{"$d": [' + ", ".join(pairs) + "]}"
    if kind is Encoded:
        return value.text
    tagged = data_literal(value, kind, depth)  # numpy and pandas values (harness_data.py)
    if tagged is not None:
        return tagged
    tagged = other_literal(value, kind, depth, iterate)  # fractions, decimals, dataclasses, iterables (below)
    if tagged is not None:
        return tagged
    # Not plain data (a map, a generator, an instance): only its type's name goes back, and the grader
    # judges it a wrong answer that names the type.
    return '{"$o": ' + _json_str(str.__str__(kind.__name__)) + "}"


class Encoded:
    """A value already written as tagged text (a step's value, checked once: a generator is read once)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


ITERATED_CAP = 100_000  # items read from an iterator (a generator, a map, a range) before it counts as endless


def other_literal(value, kind, depth, iterate=True):
    """Values that are not plain data but can be compared as data, as equal and same_items compare them:
        {"$q": [numerator, denominator]}   a fractions.Fraction
        {"$D": text}                       a decimal.Decimal
        {"$c": [class name, [[field, value], ...]]}   a dataclass compared by its fields (eq=True)
        {"$i": [type name, "seq" | "set" | "map" | "one", items]}   any other iterable: its items (a mapping's
                                           [key, value] pairs), read here, at most ITERATED_CAP of them;
                                           "one": its class compares by identity (a generator, dict.values())
    None for anything else (then only its type's name goes back)."""
    fractions, decimal = sys.modules.get("fractions"), sys.modules.get("decimal")
    if fractions is not None and kind is getattr(fractions, "Fraction", None):
        top, bottom = value.numerator, value.denominator
        if type(top) is int and type(bottom) is int:
            return '{"$q": [' + _repr_int(top) + ", " + _repr_int(bottom) + "]}"
        return None
    if decimal is not None and kind is getattr(decimal, "Decimal", None):
        return '{"$D": ' + _json_str(str.__str__(kind.__str__(value))) + "}"
    name = str.__str__(_type_name(kind))
    fields = getattr(kind, "__dataclass_fields__", None)
    params = getattr(kind, "__dataclass_params__", None)
    if type(fields) is dict and getattr(params, "eq", False) is True:
        pairs = []
        for field_name, field in fields.items():
            if type(field_name) is str and getattr(field, "compare", False) is True and \
                    str(getattr(field, "_field_type", "")) == "_FIELD":
                pairs.append("[" + _json_str(field_name) + ", " + literal(getattr(value, field_name), depth + 1) + "]")
        return '{"$c": [' + _json_str(name) + ", [" + ", ".join(pairs) + "]]}"
    abc = sys.modules.get("_collections_abc")
    if not iterate or abc is None or getattr(kind, "__iter__", None) is None:
        return None
    if isinstance(value, abc.Mapping):
        form, items = "map", [[key, value[key]] for key in limited(value)]
    else:
        # "one": an iterable whose == is identity (a generator, a map, dict.values()): equal to itself only
        form = "set" if isinstance(value, abc.Set) else "one" if by_identity(kind) else "seq"
        items = limited(value)
    if items is None:
        return '{"$o": ' + _json_str(name + " (more than %d items)" % ITERATED_CAP) + "}"
    return '{"$i": [' + _json_str(name) + ', "' + form + '", ' + literal(items, depth + 1) + "]}"


def by_identity(kind):
    """Whether the class's == is object's (identity), read from the classes' own dicts: no metaclass answers."""
    for base in _type_mro(kind):
        if base is object:
            return True
        if "__eq__" in type.__dict__["__dict__"].__get__(base):
            return False
    return True


def limited(iterable):
    """The iterable's items as a list, or None past ITERATED_CAP of them (an endless generator)."""
    items = []
    for item in iterable:
        if len(items) == ITERATED_CAP:
            return None
        items.append(item)
    return items


RAW_LIST = 1024  # items of a list past which a list of only floats (or only ints) travels as raw bytes


def raw_list(items):
    """{"$lf": [offset, count]} (float64) or {"$li": ...} (int64) for a list of exact floats or ints only,
    {"$ln": [dtype, offset, count]} for one of numpy numbers of one type (what `list(array)` gives); None for
    any other list (then written item by item): 20 ms a million floats, not a second of repr."""
    kinds = set(map(type, items))
    if len(kinds) != 1:
        return None
    if not (float in kinds or int in kinds):
        return numpy_scalars(items, kinds.pop())
    import array

    code, tag = ("d", "$lf") if float in kinds else ("q", "$li")
    try:
        packed = array.array(code, items)
    except OverflowError:  # an int past 64 bits
        return None
    if sys.byteorder != "little":
        packed.byteswap()
    offset = attach(packed, len(items) * packed.itemsize)
    return '{"' + tag + '": [' + _repr_int(offset) + ", " + _repr_int(len(items)) + "]}"


def numpy_scalars(items, kind):
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(kind, type) or not issubclass(kind, numpy.generic) \
            or kind.__module__ != "numpy":
        return None
    dtype = numpy.dtype(kind)
    if dtype.kind not in "biuf":
        return None
    packed = numpy.array(items, dtype=dtype.newbyteorder("<"))
    offset = attach(packed, packed.nbytes)
    return ('{"$ln": [' + _json_str(packed.dtype.str) + ", " + _repr_int(offset) + ", " + _repr_int(len(items))
            + "]}")
