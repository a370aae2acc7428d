"""The decoder's input as a hostile sandbox can write it: numpy, pandas and the other value tags with any
dtype text (extension dtypes whose package the grader lacks, time zones that do not exist), any shape,
payloads that do not fit, tags nested in tags and a binary part of random bytes. Whatever arrives, the
test gets a verdict (a wrong answer or a runtime error with its reason) and every report renders: the
grader itself never raises."""

from __future__ import annotations

import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.kinds import kind_of
from grader.model import CheckerSpec, Limits, Report, Verdict
from grader.model import Test as SpecTest
from grader.outputs.json_report import JsonReport
from grader.outputs.terminal import TerminalReport
from grader.replies import result_from
from grader.sandbox.wire import Attached, Frame
from grader.verdicts import judge

DTYPES = ["<i8", "<f8", "|b1", "<c16", "|u1", ">i4", "<U3", "|S2", "|O", "O", "<M8[D]", "<m8[s]", "<M8[xx]",
          "int64", "float64", "bool", "object", "category", "string", "string[pyarrow]", "string[python]",
          "Int64", "boolean", "Float64", "datetime64[ns]", "datetime64[ns, UTC]", "datetime64[ns, Mars/Olympus]",
          "timedelta64[ns]", "period[D]", "interval[int64]", "Sparse[int64]", "decimal128(10, 2)[pyarrow]",
          "int64[pyarrow]", "", "V8", "<i16", "|b", "x" * 70]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), st.text(max_size=8))
shapes = st.one_of(st.lists(st.integers(-1, 4), max_size=4), st.just([50_000_001]), st.just([1] * 40), scalars)
payloads = st.one_of(st.integers(-1, 64), st.text(alphabet="AQIDBA==", max_size=24),
                     st.lists(scalars, max_size=8), st.lists(st.lists(scalars, max_size=3), max_size=3))
dtypes = st.one_of(st.sampled_from(DTYPES), scalars)


def tagged(children: st.SearchStrategy) -> st.SearchStrategy:
    array = st.builds(lambda d, s, p: {"$nd": [d, s, p]}, dtypes, shapes, payloads)
    index = st.builds(lambda d, n, items: {"$pi": [d, n, items]}, dtypes, scalars,
                      st.one_of(st.lists(scalars, max_size=4), children))
    return st.one_of(
        array, index,
        st.builds(lambda d, item: {"$ns": [d, item]}, dtypes, scalars),
        st.builds(lambda d, o, c: {"$ln": [d, o, c]}, dtypes, st.integers(-1, 64), st.integers(-1, 10)),
        st.builds(lambda n, i, d, v: {"$ps": [n, i, d, v]}, scalars, st.one_of(index, children), dtypes,
                  st.one_of(array.map(lambda a: a["$nd"]), children)),
        st.builds(lambda c, i, cols: {"$pf": [c, i, cols]}, st.one_of(index, children), st.one_of(index, children),
                  st.lists(st.tuples(dtypes, st.one_of(array.map(lambda a: a["$nd"]), children)).map(list),
                           max_size=3)),
        st.builds(lambda tag, inner: {tag: inner}, st.sampled_from(
            ["$t", "$s", "$d", "$b", "$o", "$lf", "$li", "$q", "$D", "$c", "$i", "$zz"]), children),
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=3), children, max_size=3),
    )


def well_formed(dtype: object, items: list, kind: str) -> object:
    """A value the harness could have written, but with any dtype: its shape and index fit its items."""
    numbers = list(range(len(items)))
    array = ["<i8", [len(items)], numbers] if kind != "items" else ["|O", [len(items)], items]
    if kind == "index":
        return {"$pi": [dtype, None, items]}
    if kind == "frame":
        return {"$pf": [{"$pi": ["object", None, ["a"]]}, {"$pi": ["int64", None, numbers]}, [[dtype, array]]]}
    return {"$ps": ["s", {"$pi": ["int64", None, numbers]}, dtype, array]}


values = st.recursive(st.one_of(scalars, st.builds(well_formed, dtypes, st.lists(scalars, max_size=3),
                                                   st.sampled_from(["index", "frame", "series", "items"]))),
                      tagged, max_leaves=12)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(values, st.binary(max_size=96), st.sampled_from(["value", "equal", "same_items", "unordered", "close",
                                                          "array"]),
       st.sampled_from([[1, 2, 3], 1.5, "text", {"a": 1}, None]), st.booleans())
def test_any_tagged_value_ends_in_a_verdict_never_in_a_grader_error(value: object, binary: bytes, checker: str,
                                                                      expected: object, hidden: bool) -> None:
    text = json.dumps({"value": value}).encode()
    buffer = bytearray(text + b" " * (-(len(text) + 1) % 8) + b"\0" + binary) if binary else bytearray(text)
    frame = Frame(data={"seq": 1, "status": 0, "result": Attached(buffer, 0)}, wall_seconds=0.1, cpu_seconds=0.01)
    test = SpecTest(name="t", call="f()", stdin=None, compare="value", expect=None, hidden=hidden, big=False,
                    points=1.0, checker=CheckerSpec(checker), limits=Limits(cpu=1.0, output=4))
    result = result_from(frame, test.limits, kind_of("function"))  # type: ignore[arg-type]
    outcome = judge(test, result, expected)
    assert outcome.verdict in (Verdict.PASSED, Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR), outcome
    report = Report("fuzz", "submission.py", (outcome,), "isolation: fuzz")
    as_json, as_text = io.StringIO(), io.StringIO()
    JsonReport().render(report, as_json)
    TerminalReport(width=100, color=False).render(report, as_text)
    json.loads(as_json.getvalue(), parse_constant=_refuse)


def _refuse(name: str) -> None:
    raise ValueError(f"{name} in a report")
