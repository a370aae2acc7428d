"""numpy and pandas values cross the reply channel as tagged data: the harness's own encoder (run here, on
the grader's numpy and pandas) and the grader's decoder give back equal values of the same dtypes; forged
tags are unreadable, never objects; the checkers say where two values differ."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from grader.checkers import CHECKERS
from grader.sandbox import wire


@pytest.fixture(scope="module")
def literal():
    """The harness's `literal`, from the text the sandbox runs (without its main())."""
    namespace: dict = {}
    exec(compile(wire.HARNESS.removesuffix("\nmain()\n"), "<harness>", "exec"), namespace)
    return namespace["literal"]


def _round_trip(literal, value: object) -> object:
    return wire.decode(literal(value).encode())


VALUES = [
    np.arange(12, dtype=np.int32).reshape(3, 4),
    np.array([1.5, np.nan, -np.inf, 0.0]),
    np.array([[True, False]]),
    np.array([1 + 2j, 3.5j]),
    np.array(["a", "bé", ""]),
    np.array(["2024-01-02", "1999-12-31"], dtype="datetime64[D]"),
    np.array([], dtype=np.float32),
    np.arange(6, dtype=">i8"),  # big-endian bytes come back as native ones of the same values
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: str(v.dtype))
def test_arrays_come_back_with_their_dtype_shape_and_values(literal, value) -> None:
    back = _round_trip(literal, value)
    assert isinstance(back, np.ndarray) and back.shape == value.shape
    assert back.dtype == value.dtype.newbyteorder("=")
    np.testing.assert_array_equal(back, value)
    assert CHECKERS["value"](value, back).passed


def test_numpy_scalars_keep_their_type(literal) -> None:
    for value in (np.float32(1.25), np.int8(-3), np.bool_(True), np.uint64(2**63), np.str_("x")):
        back = _round_trip(literal, value)
        assert type(back) is type(value) and back == value


def test_series_and_frames_keep_index_names_and_dtypes(literal) -> None:
    series = pd.Series([1.5, 2.5, None], index=pd.Index(["a", "b", "c"], name="key"), name="price")
    frame = pd.DataFrame({"city": ["Oslo", "Rome"], "people": np.array([700, 2800], dtype=np.int64),
                          "share": [0.25, 0.75], "kind": pd.Categorical(["small", "big"]),
                          "when": pd.to_datetime(["2024-01-01", "2024-06-30"])}, index=[10, 20])
    for value in (series, frame, frame.set_index("city"), pd.Series([], dtype="int64")):
        back = _round_trip(literal, value)
        assert type(back) is type(value)
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(back, value)
        else:
            pd.testing.assert_series_equal(back, value)


def test_a_million_floats_fit_and_travel_as_bytes(literal) -> None:
    value = np.random.default_rng(3).random(1_000_000)
    text = literal(value)
    assert len(text) < 12 << 20  # the harness's result cap
    np.testing.assert_array_equal(wire.decode(text.encode()), value)


@pytest.mark.parametrize("forged", [
    {"$nd": ["|O8", [1], "AAAAAAAAAAA="]},  # raw bytes as object pointers
    {"$nd": ["<f8", [3], "AAAAAAAAAAA="]},  # fewer bytes than its shape
    {"$nd": ["<f8", [10**9, 10**9], ""]},  # a shape far past any reply
    {"$nd": ["<f8", [-1], ""]},
    {"$nd": ["V8", [1], [1]]},  # a void dtype
    {"$ps": ["x", [1, 2], "int64", ["<i8", [2], "AQAAAAAAAAACAAAAAAAAAA=="]]},  # an index that is no index
    {"$pi": ["__import__('os')", None, [1]]},
    {"$ns": ["<f8", {"$t": [1]}]},
])
def test_forged_tags_are_unreadable(forged) -> None:
    assert wire.decode(json.dumps({"value": forged}).encode()) is None


def test_the_checkers_say_where_values_differ() -> None:
    got = np.array([[1.0, 2.0], [3.0, 4.5]])
    want = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert CHECKERS["array"](want, got).feedback == "1 of 4 items differ; the first at index (1, 1): expected 4.0, got 4.5"
    assert CHECKERS["allclose"](want, got, rtol=0.2).passed
    assert CHECKERS["array"](want, got.astype(np.float32)).feedback == "expected dtype float64, got dtype float32"
    assert CHECKERS["array"](want, got[:1]).feedback == "expected shape (2, 2), got shape (1, 2)"
    assert CHECKERS["array"](want, [[1.0]]).feedback.startswith("expected a numpy array, got a list")
    frame = pd.DataFrame({"a": [1, 2], "b": [0.5, 0.25]})
    reordered = frame[["b", "a"]]
    assert not CHECKERS["frame"](frame, reordered).passed
    assert CHECKERS["frame"](frame, reordered, check_column_order=False).passed
    shifted = frame.set_axis([5, 6])
    assert CHECKERS["frame"](frame, shifted).feedback == "the index differs at row 0: expected [0], got [5]"
    assert CHECKERS["frame"](frame, shifted, check_index=False).passed
    assert CHECKERS["frame"](frame, frame.astype({"a": "int32"})).feedback == \
        "expected dtype int64 in column 'a', got int32"
    assert CHECKERS["frame"](frame, frame.astype({"a": "int32"}), check_dtype=False).passed
    off = frame.assign(b=[0.5, 0.3])
    assert CHECKERS["frame"](frame, off).feedback.endswith("in column 'b'; the first at row 1: expected 0.25, got 0.3")
    assert "missing columns ['b']" in CHECKERS["frame"](frame, frame[["a"]]).feedback
