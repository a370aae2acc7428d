"""Forged values: a submission that replaces the harness's value encoder sends tags the grader cannot
build (an extension dtype whose package the grader lacks, a shape its items do not fill, tags nested in
tags, tags that do not exist). Each is that test's failure with the reason; the grader itself never fails."""

from __future__ import annotations

from tests.hostile.host import Course, submission

FORGED = ["pyarrow_series", "pyarrow_index", "timezone", "odd_shape", "nested_tags", "unknown_tag",
          "series_of_frames"]


def test_a_value_the_grader_cannot_rebuild_fails_its_test_with_the_reason(hostile: Course) -> None:
    hostile.exercise("".join(f"  - name: {name}\n    call: forged({name!r})\n    expect: [1]\n" for name in FORGED))
    result = hostile.check(submission("forged_values.py"), "--all")
    assert result.returncode == 1, result.stderr[-2000:]  # a report of failed tests, not the crash's exit 4
    tests = {t["name"]: t for t in result.json()["tests"]}
    for name in FORGED:
        assert tests[name]["verdict"] in ("runtime_error", "wrong_answer"), tests[name]
    assert "string[pyarrow]" in tests["pyarrow_series"]["feedback"], tests["pyarrow_series"]
    assert "unreadable" in tests["pyarrow_index"]["feedback"], tests["pyarrow_index"]
    assert tests["square(3)"]["verdict"] == "passed"
    assert tests[f"secret-{hostile.needle}"]["verdict"] == "passed"
