"""Expected values: written in the spec, or produced once by the reference solution (or the predict snippet)
and cached on disk, keyed by the content of the spec and of the reference."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from grader.cache import cache_dir, key_hash, read_pickle, write_pickle
from grader.model import MISSING, Exercise, Kind, RunResult, Test
from grader.running import SubmissionRun

CACHE_VERSION = "2"  # 2: pickled values


class ExpectationError(Exception):
    """The reference (or snippet) could not produce an expected value; a grader error, not the student's."""


def primary_reference(exercise: Exercise) -> Path | None:
    """The first accepted reference by name: the one whose answers are the expected ones."""
    folder = exercise.reference_dir / "accepted"
    candidates = sorted(folder.glob("*.py")) if folder.is_dir() else []
    return candidates[0] if candidates else None


def source_of_truth(exercise: Exercise) -> tuple[str, Exercise] | None:
    """The code that produces the expected answers, and the exercise as it must be run."""
    if exercise.kind == Kind.PREDICT:
        # The snippet is a program whose output is the answer.
        snippet_test = replace(exercise.tests[0], call=None, stdin="", compare="output")
        as_program = replace(exercise, kind=Kind.PROGRAM, tests=(snippet_test,))
        return exercise.snippet, as_program
    reference = primary_reference(exercise)
    return (reference.read_text(encoding="utf-8"), exercise) if reference else None


def expected_values(exercise: Exercise) -> dict[str, object]:
    """Every test's expected value or text; computed and cached where the spec leaves `expect` out."""
    values = {t.name: t.expect for t in exercise.tests if t.expect is not MISSING}
    if exercise.kind == Kind.PREDICT:
        needed = list(exercise.tests) if not values else []
    else:
        needed = [t for t in exercise.tests if t.expect is MISSING]
    if not needed:
        return values
    truth = source_of_truth(exercise)
    if truth is None:
        raise ExpectationError(f"tests {', '.join(t.name for t in needed)} have no 'expect' and there is no "
                               f"accepted reference in {exercise.reference_dir / 'accepted'} to compute it")
    source, runnable = truth
    key = _cache_key(exercise, source, needed)
    cached = _read_cache(key)
    if cached is None:
        cached = _compute(runnable, source, needed)
        _write_cache(key, cached)
    values.update(cached)
    return values


def _compute(exercise: Exercise, source: str, tests: list[Test]) -> dict[str, object]:
    computed: dict[str, object] = {}
    with SubmissionRun(exercise, source) as run:
        runnable = {t.name: t for t in exercise.tests}
        for test in tests:
            result = run.run(runnable.get(test.name, exercise.tests[0]))
            computed[test.name] = answer_of(result, test, exercise.kind)
    return computed


def answer_of(result: RunResult, test: Test, kind: Kind) -> object:
    problem = (result.sandbox_error or (result.timed_out and "it timed out")
               or (result.error_type and f"it raised {result.error_type}: {result.error_message}")
               or (result.output_truncated and "its output was too long"))
    if problem:
        raise ExpectationError(f"the reference failed on test '{test.name}': {problem}")
    if test.compare == "output" or kind != Kind.FUNCTION:
        return result.stdout
    return result.value


def _cache_key(exercise: Exercise, source: str, tests: list[Test]) -> str:
    digest = key_hash()
    for part in (CACHE_VERSION, exercise.id, exercise.kind, exercise.prelude, source):
        digest.update(str(part).encode() + b"\0")
    for test in tests:
        digest.update(repr((test.name, test.call, test.stdin, test.compare)).encode() + b"\0")
    return digest.hexdigest()


def _read_cache(key: str) -> dict[str, object] | None:
    # A pickle: read back at once, where parsing big literals back (n-queens' boards) was slow.
    values = read_pickle(cache_dir() / f"{key}.pickle")
    return values if isinstance(values, dict) else None


def _write_cache(key: str, values: dict[str, object]) -> None:
    write_pickle(cache_dir() / f"{key}.pickle", values)
