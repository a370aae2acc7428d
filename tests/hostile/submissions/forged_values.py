# Replaces the harness's value encoder (data_literal) while loading: what its tests return goes back as
# tags of its own choosing (dtypes the grader cannot build, shapes that do not fit, nested tags, tags
# that do not exist), which the grader must read as that test's failure, never as a failure of its own.
import __main__

FORGED = {
    "pyarrow_series": '{"$ps": [null, {"$pi": ["int64", null, [0]]}, "string[pyarrow]", ["<i8", [1], [1]]]}',
    "pyarrow_index": '{"$pi": ["string[pyarrow]", null, ["a"]]}',
    "timezone": '{"$pi": ["datetime64[ns, Mars/Olympus]", null, ["2020-01-01"]]}',
    "odd_shape": '{"$nd": ["<i8", [2, 3], [1, 2]]}',
    "nested_tags": '{"$t": {"$d": {"$s": {"$nd": 5}}}}',
    "unknown_tag": '{"$zz": [1, 2, 3]}',
    "series_of_frames": '{"$ps": [null, {"$pf": [1, 2, 3]}, "int64", ["<i8", [1], [1]]]}',
}


class Forged:
    def __init__(self, text):
        self.text = text


real_data_literal = __main__.data_literal


def data_literal(value, kind, depth):
    if kind is Forged:
        return value.text
    return real_data_literal(value, kind, depth)


__main__.data_literal = data_literal


def forged(name):
    return Forged(FORGED[name])


def square(n):
    return n * n
