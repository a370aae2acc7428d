"""Expected values: written in the spec, or produced once by the reference solution (or the predict snippet)
and cached on disk, keyed by the content of the spec and of the reference."""

from __future__ import annotations

from dataclasses import replace

from grader.cache import cache_dir, key_hash, read_pickle, write_pickle
from grader.forms import form_of
from grader.handins import Handin, read_handin
from grader.kinds import kind_of
from grader.model import MISSING, Exercise, Fault, RunResult, Test, Timing
from grader.verdicts import FAULT_LABELS

CACHE_VERSION = "4"  # 2: pickled values; 3: iterables, fractions, decimals and dataclasses read as data;
# 4: an exception's args[0] as data, iterables compared by identity marked


class ExpectationError(Exception):
    """The reference (or snippet) could not produce an expected value; a grader error, not the student's."""


def source_of_truth(exercise: Exercise) -> tuple[Handin, Exercise] | None:
    """What produces the expected answers, read as a hand-in (a reference may be a notebook or a folder),
    and the exercise as it must be run."""
    truth = kind_of(exercise.kind).truth(exercise)
    if truth is None:
        return None
    code, runnable = truth
    if isinstance(code, str):
        return Handin(source=code), runnable
    handin = read_handin(code, exercise)
    if not handin.ok:
        raise ExpectationError(f"the accepted reference {code.name} cannot be read: {handin.refused}")
    return handin, runnable


def expected_values(exercise: Exercise, every: bool = False) -> dict[str, object]:
    """Every test's expected value or text; computed and cached where the spec leaves `expect` out
    (`every`: computed for every test, as `grader validate` confirms what is written). A `search:` has
    the reference itself as its expected answer (a Handin): it travels with the exercise to every
    worker, which runs it on each generated input in a sandbox of its own (grader/search)."""
    values = _expected_values(exercise, every)
    if exercise.search is not None:
        truth = source_of_truth(exercise)  # none (specs without their references): no search runs
        if truth is not None:
            values[exercise.search.name] = truth[0]
    return values


def _expected_values(exercise: Exercise, every: bool) -> dict[str, object]:
    values = {t.name: _written(t) for t in exercise.tests if t.expect is not MISSING}
    digests = _given_digests(exercise)
    needed = list(exercise.tests) if every else kind_of(exercise.kind).unwritten(exercise)
    if not needed:
        return values
    truth = source_of_truth(exercise)
    if truth is None and all(t.checker.name == "custom" for t in needed):
        return {**values, **{t.name: None for t in needed}}  # a course's own checker judges without one
    if truth is None:
        raise ExpectationError(f"tests {', '.join(t.name for t in needed)} have no 'expect' and there is no "
                               f"accepted reference in {exercise.reference_dir / 'accepted'} to compute it")
    handin, runnable = truth
    # A plain file keys by its text (no hashlib to load for a check); a notebook or folder by its digest.
    identity = handin.source if handin.form == "file" and not handin.modules else handin.digest()
    key = _cache_key(exercise, identity, needed, digests)
    cached = _read_cache(key)
    if cached is None:
        cached = _compute(runnable, handin, needed)
        _write_cache(key, cached)
    values.update(cached)
    return values


def _written(test: Test) -> object:
    """A test's written `expect`; for the numpy and pandas checkers, the array or frame it describes."""
    if test.checker.name in ("array", "allclose", "frame") and isinstance(test.expect, dict):
        from grader.checkers.arrays import from_spec

        return from_spec(test.expect)
    return test.expect


def _given_digests(exercise: Exercise) -> dict[str, str]:
    """The digest of each test's `given` values, made now: a generator's failure is said here."""
    tests = [t for t in exercise.tests if t.given]
    if not tests:
        return {}
    from grader.forms.given import GenerationError, given_digest  # the generators' machinery, when used

    try:
        return {t.name: given_digest(t) for t in tests}
    except GenerationError as error:
        raise ExpectationError(str(error)) from None


def _compute(exercise: Exercise, handin: Handin, tests: list[Test]) -> dict[str, object]:
    computed: dict[str, object] = {}
    from grader.running import SubmissionRun  # only when expected values are computed, not read back

    with SubmissionRun(exercise, handin.source, modules=handin.modules) as run:
        runnable = {t.name: t for t in exercise.tests}
        for test in tests:
            ran = runnable.get(test.name, exercise.tests[0])
            result = run.run(ran)
            if result.timing is Timing.STOPPED_WALL and result.cpu_seconds < ran.limits.cpu / 2:
                # Stopped by the wall clock with little CPU used: a loaded machine, not the reference (whose
                # failure would be every student's grader error). Once more, with room.
                roomy = replace(ran, limits=replace(ran.limits, wall=ran.limits.wall_seconds * 3))
                result = run.run(roomy)
            computed[test.name] = answer_of(result, test)
    return computed


def answer_of(result: RunResult, test: Test) -> object:
    form = form_of(test)
    problem = (result.sandbox_error or (result.timed_out and "it timed out")
               or (form.problem(result) and f"it raised {_label(result)}: {result.error_message}")
               or (result.output_truncated and "its output was too long"))
    if problem:
        raise ExpectationError(f"the reference failed on test '{test.name}': {problem}")
    return form.answer(result, test)


def _cache_key(exercise: Exercise, source: str, tests: list[Test], digests: dict[str, str]) -> str:
    digest = key_hash()
    for part in (CACHE_VERSION, exercise.id, exercise.kind, exercise.prelude, exercise.test_setup, source):
        digest.update(str(part).encode() + b"\0")
    for test in tests:
        digest.update(repr((test.name, test.call, test.stdin, test.compare)).encode() + b"\0")
        if test.form != "call" or test.given:
            digest.update(f"{test.form}:{form_of(test).cache_part(test)}:{digests.get(test.name, '')}".encode() + b"\0")
    return digest.hexdigest()


def _read_cache(key: str) -> dict[str, object] | None:
    # A pickle: read back at once, where parsing big literals back (n-queens' boards) was slow.
    values = read_pickle(cache_dir() / f"{key}.pickle")
    return values if isinstance(values, dict) else None


def _write_cache(key: str, values: dict[str, object]) -> None:
    write_pickle(cache_dir() / f"{key}.pickle", values)


def _label(result: RunResult) -> str:
    return result.error_type if result.fault is Fault.RAISED else FAULT_LABELS[result.fault]
