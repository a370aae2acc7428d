"""Big values cross the sandbox's channels as raw bytes, never pickled: a test child's result is its JSON
text, a NUL and the raw numbers its arrays and long number lists point to; a big `given` list of numbers,
or a numpy array a generator returns, reaches the harness as bytes after the request's marshal part. Forged
offsets are unreadable, never a read past the reply."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from grader.sandbox import wire
from tests.conftest import DATA_COURSE, run_cli


@pytest.fixture(scope="module")
def harness():
    """The harness's namespace, from the text the sandbox runs (without its main())."""
    namespace: dict = {}
    exec(compile(wire.HARNESS.removesuffix("\nmain()\n"), "<harness>", "exec"), namespace)
    return namespace


def _result(harness, value: object) -> object:
    """`value` as a test child writes it (frame_parts, write_parts into a memfd, as the child does), decoded
    as the grader decodes a result."""
    fd = os.memfd_create("result")
    try:
        harness["write_parts"](fd, harness["frame_parts"]({"value": value}))
        data = bytearray(os.pread(fd, os.fstat(fd).st_size, 0))
    finally:
        os.close(fd)
    decoded = wire.decode(data)
    assert isinstance(decoded, dict), data[:200]
    return decoded["value"]


def test_an_array_result_travels_as_its_raw_bytes_after_the_text(harness) -> None:
    value = np.random.default_rng(3).random(1_000_000)
    parts = harness["frame_parts"]({"value": value})
    assert len(parts[0]) < 200 and parts[1] == b"\0"  # the text names the bytes; it does not hold them
    assert (len(parts[0]) + 1) % 8 == 0  # the numbers start aligned
    back = _result(harness, value)
    assert back.dtype == np.float64 and back.flags.aligned
    np.testing.assert_array_equal(back, value)


@pytest.mark.parametrize("value", [
    np.arange(12, dtype=np.int32).reshape(3, 4),
    np.array([1.5, np.nan, -np.inf]),
    np.array([True, False, True]),  # 3 bytes: the next one starts at 8 all the same
    np.array([1 + 2j]),
    np.arange(6, dtype=">i8"),
    np.array([], dtype=np.float32),
    np.zeros((0, 3)),  # no bytes at all
    np.zeros((2, 0, 2), dtype=np.int8),
    np.array(2.5),  # no dimension
], ids=lambda v: f"{v.dtype}{v.shape}")
def test_arrays_of_every_raw_kind_come_back_equal(harness, value) -> None:
    flipped = value[::-1].copy() if value.ndim else value
    back = _result(harness, {"$t": 0, "a": value, "b": flipped})
    np.testing.assert_array_equal(back["a"], value)
    np.testing.assert_array_equal(back["b"], flipped)
    assert back["a"].shape == value.shape
    assert back["a"].dtype == value.dtype.newbyteorder("=")


def test_series_frames_and_long_number_lists_use_the_binary_part(harness) -> None:
    frame = pd.DataFrame({"x": np.arange(5000, dtype=np.float64), "k": ["a", "b"] * 2500})
    series = pd.Series(np.arange(3, dtype=np.int16), index=["a", "b", "c"], name="s")
    floats = [i / 7 for i in range(5000)] + [float("nan")]
    ints = list(range(-2000, 2000))
    back = _result(harness, [frame, series, floats, ints, [1, 2.5] * 600, [2**70] * 2000])
    pd.testing.assert_frame_equal(back[0], frame)
    pd.testing.assert_series_equal(back[1], series)
    assert back[2][:-1] == floats[:-1] and back[2][-1] != back[2][-1] and all(type(x) is float for x in back[2])
    assert back[3] == ints and all(type(x) is int for x in back[3])
    assert back[4] == [1, 2.5] * 600 and type(back[4][0]) is int  # mixed: item by item, types kept
    assert back[5] == [2**70] * 2000  # past 64 bits: item by item


def test_a_long_list_of_numpy_numbers_comes_back_as_one_in_raw_bytes(harness) -> None:
    """`list(array)` is a common slip (a list of numpy floats, not an array): it must cost the grader what an
    array does, not a tagged scalar per item, and still come back as what it is."""
    values = list(np.random.default_rng(5).random(200_000))
    flags = list(np.arange(3000) % 3 == 0)
    mixed = [np.float64(1.5), np.float32(2.5)] * 600  # two types: item by item
    parts = harness["frame_parts"]({"value": [values, flags, mixed]})
    assert len(parts[0]) < 40_000  # the text names the 200,000 numbers' bytes, not them
    back = _result(harness, [values, flags, mixed])
    assert type(back[0]) is list and all(type(x) is np.float64 for x in back[0]) and back[0] == values
    assert all(type(x) is np.bool_ for x in back[1]) and back[1] == flags
    assert [type(x) for x in back[2][:2]] == [np.float64, np.float32] and back[2] == mixed


@pytest.mark.parametrize("forged", [
    {"$ln": ["|O8", 0, 1]},  # raw bytes as object pointers
    {"$ln": ["<f8", 0, 3]},  # past the end of the binary part
    {"$ln": ["<c16", 0, 1]},
    {"$nd": ["<f8", [4], 0]},  # past the end of the binary part
    {"$nd": ["<f8", [1], -8]},
    {"$nd": ["|O8", [1], 0]},  # raw bytes as object pointers
    {"$lf": [0, 3]},
    {"$lf": [16, 1]},
    {"$li": ["0", 1]},
])
def test_forged_offsets_are_unreadable(forged) -> None:
    data = bytearray(json.dumps({"value": forged}).encode() + b"\0" + bytes(16))
    assert wire.decode(data) is None


def test_the_same_numbers_named_twice_are_unreadable() -> None:
    """Each byte of the binary part is handed out once: a forged text cannot make the grader build the
    same million-item list over and over."""
    for tag in ({"$lf": [0, 2]}, {"$nd": ["<f8", [2], 0]}):
        once = bytearray(json.dumps({"value": [tag]}).encode() + b"\0" + bytes(16))
        assert wire.decode(once) is not None
        twice = bytearray(json.dumps({"value": [tag, tag]}).encode() + b"\0" + bytes(16))
        assert wire.decode(twice) is None


def test_an_offset_without_a_binary_part_is_unreadable() -> None:
    assert wire.decode(json.dumps({"value": {"$nd": ["<f8", [1], 0]}}).encode()) is None
    assert wire.decode(json.dumps({"value": {"$lf": [0, 0]}}).encode()) is None


def test_a_request_carries_its_attachments_raw_after_the_marshal_part() -> None:
    blob = bytes(range(256)) * 4
    parts = wire.framed({"seq": 1, "given_raw": [("xs", "list", "d", (128,), 0)], "attachments": [blob]})
    assert parts[-1] is blob  # written as it is, never joined into a copy
    frame = b"".join(parts)
    assert frame.endswith(blob)
    size = int.from_bytes(frame[:4], "big")
    import marshal

    header = marshal.loads(frame[4:4 + size])
    assert header["attachments"] == [len(blob)] and 4 + size + len(blob) == len(frame)


COURSE = """\
title: big
kind: function
entry: f
statement: x
limits: {cpu: 10, memory: 1024}
checker: {name: allclose, args: {rtol: 1.0e-12}}
tests:
  - name: array in, array out
    call: f(xs)
    given:
      xs: {generator: array, args: {count: 300000, seed: 5}}
  - name: list in, list out
    call: g(ys)
    checker: value
    given:
      ys: {generator: floats, args: {count: 300000, seed: 5}}
  - name: ints in
    call: sum(ns)
    checker: value
    given:
      ns: {generator: ints, args: {count: 5000}}
  - name: a table of columns in
    call: h(table)
    checker: value
    given:
      table: {generator: table, args: {rows: 200000}}
"""
GENERATORS = """\
import random

import numpy as np


def array(count, seed):
    return np.random.default_rng(seed).normal(size=(count // 3, 3))


def floats(count, seed):
    rng = random.Random(seed)
    return [rng.random() for _ in range(count)]


def ints(count):
    return list(range(count))


def table(rows):
    return {"store": [i % 7 for i in range(rows)], "amount": [i / 4 for i in range(rows)], "title": "sales",
            "flags": [True] * rows, 3: np.arange(rows)}
"""
ACCEPTED = """\
import numpy as np


def f(xs):
    assert type(xs) is np.ndarray and xs.shape == (100000, 3) and xs.flags.writeable
    xs -= xs.mean(axis=0)  # in place: its own copy of the input
    return xs * 2


def g(ys):
    assert type(ys) is list and all(type(y) is float for y in ys)
    return [y + 1 for y in ys]


def h(table):
    assert list(table) == ["store", "amount", "title", "flags", 3], list(table)
    assert type(table["store"]) is list and all(type(s) is int for s in table["store"])
    assert all(type(a) is float for a in table["amount"]) and table["flags"][:2] == [True, True]
    assert type(table[3]) is np.ndarray
    return [len(table["store"]), sum(table["store"]), sum(table["amount"]), table["title"], int(table[3].sum())]
"""


def data_course(root: Path, exercise_id: str, spec: str, generators: str = GENERATORS,
                accepted: str | None = ACCEPTED) -> tuple[Path, Path]:
    """A course under `root` that uses the data course's environment: (its exercises folder, the accepted
    reference written, when one is given)."""
    (root / "grader-course.yaml").write_text(f"environment:\n  requirements: {DATA_COURSE / 'requirements.txt'}\n")
    exercises = root / "exercises"
    exercises.mkdir()
    (exercises / "generators.py").write_text(generators)
    (exercises / f"{exercise_id}.yaml").write_text(spec)
    reference = root / "reference" / exercise_id / "accepted" / "in_place.py"
    if accepted is not None:
        reference.parent.mkdir(parents=True)
        reference.write_text(accepted)
    return exercises, reference


def test_big_given_values_and_answers_grade_through_the_sandbox(data_environment, tmp_path: Path) -> None:
    exercises, accepted = data_course(tmp_path, "big", COURSE)
    result = run_cli("check", "big", accepted, "--all", "--format", "json", "--exercises", exercises)
    report = result.json()
    assert report["verdict"] == "passed", result.stdout
    wrong = tmp_path / "wrong.py"
    wrong.write_text(ACCEPTED.replace("xs * 2", "xs * 2.000001").replace("y + 1 for", "y + 1.5 for"))
    report = run_cli("check", "big", wrong, "--all", "--format", "json", "--exercises", exercises).json()
    assert [t["verdict"] for t in report["tests"]] == ["wrong_answer", "wrong_answer", "passed", "passed"], report
    assert "index (0, 0)" in report["tests"][0]["feedback"]
    assert report["tests"][1]["feedback"].startswith("item 0 differs")


def test_a_dicts_big_columns_go_raw_and_its_other_values_as_data() -> None:
    from grader.forms.given import split_raw

    table = {"store": list(range(3000)), "amount": [0.5] * 3000, "title": "sales", "few": [1, 2]}
    plain, parts = split_raw(table)
    assert plain == {"store": None, "amount": None, "title": "sales", "few": [1, 2]}
    assert [(key, form, code, shape) for key, (form, code, shape, _) in parts] == \
        [("store", "list", "q", (3000,)), ("amount", "list", "d", (3000,))]
    assert split_raw({(1, 2): list(range(3000))})[1] == []  # a key marshal alone can carry: all of it as data


def test_a_generator_returning_an_object_array_is_a_grader_error(data_environment, tmp_path: Path) -> None:
    exercises, _ = data_course(tmp_path, "big", textwrap.dedent("""\
        title: big
        kind: function
        entry: f
        statement: x
        tests:
          - name: objects
            call: f(xs)
            expect: 1
            given:
              xs: {generator: objects}
        """), generators="import numpy as np\n\ndef objects():\n    return np.array([object()], dtype=object)\n",
        accepted=None)
    submission = tmp_path / "s.py"
    submission.write_text("def f(xs):\n    return 1\n")
    result = run_cli("check", "big", submission, "--format", "json", "--exercises", exercises)
    assert "returned a ndarray of dtype object" in result.stdout + result.stderr


INSIDE = """\
title: inside
kind: function
entry: f
statement: x
limits: {cpu: 10, memory: 1024}
checker: {name: allclose, args: {rtol: 1.0e-12}}
tests:
  - name: made in the sandbox
    call: f(xs)
    hidden: true
    given:
      xs: {generator: array, args: {count: 300000, seed: 5}, inside: true}
  - name: a list made in the sandbox
    call: g(ys)
    checker: value
    given:
      ys: {generator: floats, args: {count: 3000, seed: 5}, inside: true}
"""


def test_an_input_made_inside_the_sandbox_is_the_one_the_reference_saw(data_environment, tmp_path: Path) -> None:
    """`inside: true`: the generator runs in each sandbox from its source and seed (the reference's and the
    submission's), never in the grader: the expected value is the reference's answer on the same input."""
    exercises, accepted = data_course(tmp_path, "inside", INSIDE)
    cache = tmp_path / "cache"
    env = {"GRADER_CACHE": str(cache)}
    report = run_cli("check", "inside", accepted, "--all", "--format", "json", "--exercises", exercises, env=env).json()
    assert report["verdict"] == "passed", report
    assert not list(cache.glob("generated-*"))  # nothing generated in the grader
    wrong = tmp_path / "wrong.py"
    wrong.write_text(ACCEPTED.replace("xs * 2", "xs * 2.000001"))
    report = run_cli("check", "inside", wrong, "--all", "--format", "json", "--exercises", exercises, env=env).json()
    assert [t["verdict"] for t in report["tests"]] == ["wrong_answer", "passed"], report


def test_a_generator_that_fails_inside_the_sandbox_is_a_grader_error(data_environment, tmp_path: Path) -> None:
    exercises, _ = data_course(tmp_path, "inside", textwrap.dedent("""\
        title: inside
        kind: function
        entry: f
        statement: x
        tests:
          - name: broken
            call: f(xs)
            expect: 1
            given:
              xs: {generator: broken, inside: true}
        """), generators=GENERATORS + "\n\ndef broken():\n    return 1 / 0\n", accepted=None)
    submission = tmp_path / "s.py"
    submission.write_text("def f(xs):\n    return 1\n")
    report = run_cli("check", "inside", submission, "--format", "json", "--exercises", exercises).json()
    assert report["tests"][0]["verdict"] == "grader_error", report


def test_inside_must_be_true_or_false(tmp_path: Path) -> None:
    from grader.errors import SpecError
    from grader.spec import load_exercise

    (tmp_path / "generators.py").write_text(GENERATORS)
    spec = tmp_path / "inside.yaml"
    spec.write_text(INSIDE.replace("inside: true}\n  - name: a list", "inside: maybe}\n  - name: a list"))
    message = "inside.yaml:12:70: inside of given 'xs' of test 'made in the sandbox' must be true or false"
    with pytest.raises(SpecError, match=message):
        load_exercise(spec)
