"""A batch's grading key digests every test's expected answer (grader/batch/plan.py: canonical): stored
grades are reused only while it is the same. It must tell apart answers that differ anywhere."""

from __future__ import annotations

import pytest

from grader.workers.job import canonical

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")


def test_arrays_that_differ_only_in_their_middle_have_different_keys() -> None:
    expected = np.arange(10_000, dtype=np.float64)
    changed = expected.copy()
    changed[5_000] = -1.0
    assert repr(expected) == repr(changed)  # numpy's repr leaves the middle out
    assert canonical(expected) != canonical(changed)
    assert canonical(expected) == canonical(expected.copy())
    assert canonical(expected) != canonical(expected.astype(np.float32))
    assert canonical(expected) != canonical(expected.reshape(100, 100))


def test_pandas_values_are_keyed_by_every_item() -> None:
    series = pd.Series(np.arange(5_000), name="amount")
    changed = series.copy()
    changed.iloc[2_500] = -1
    assert canonical(series) == canonical(series.copy())
    assert canonical(series) != canonical(changed)
    frame = pd.DataFrame({"x": np.arange(5_000)})
    assert canonical(frame) != canonical(frame.rename(columns={"x": "y"}))


def test_plain_values_keep_their_types_and_a_sets_order_does_not_matter() -> None:
    assert canonical([1, 2.0]) != canonical((1, 2.0)) != canonical([1, 2])
    assert canonical({3, 1, 2}) == canonical({2, 3, 1})
    assert canonical([[1], {"a": [0.5] * 3}]) == canonical([[1], {"a": [0.5] * 3}])
