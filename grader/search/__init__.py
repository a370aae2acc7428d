"""A spec's `search:` run as one more outcome of a grading (docs/search.md): the reference in a sandbox of
its own, the submission in its own, Hypothesis and the checker in the grader (grader/search/engine.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from grader.handins.base import Handin
from grader.model import Exercise, Outcome, RunResult, Search, Test, Verdict
from grader.running import SubmissionRun
from grader.sandbox import Backend
from grader.search.answers import Answers
from grader.search.engine import SearchResult, run_search
from grader.search.literal import call_text
from grader.text import bounded

HIDDEN_WORDS = {Verdict.WRONG_ANSWER: "wrong answer", Verdict.TIMEOUT: "time limit exceeded",
                Verdict.MEMORY_LIMIT: "ran out of memory", Verdict.OUTPUT_LIMIT: "printed too much"}


def searched(exercise: Exercise, submission: SubmissionRun, expected: dict[str, object],
             backend: Backend, private_paths: tuple[Path, ...], skip: str = "") -> Outcome | None:
    """The search's outcome for a submission whose tests ran (in `submission`, which runs each input in
    a fresh child of its sandbox); None without a search or without its reference (a student bundle has none). `skip`: why it
    does not run (a test before it timed out and the student asked to stop early)."""
    search = exercise.search
    truth = expected.get(search.name) if search is not None else None
    if search is None or not isinstance(truth, Handin) or exercise.entry is None:
        return None
    if skip:
        return uniform(search, Verdict.SKIPPED, skip)
    with SubmissionRun(exercise, truth.source, private_paths, backend, truth.modules) as reference:
        if _coexist(backend):
            answers = Answers(exercise, truth, reference.run)
            result = run_search(search, exercise.entry, submission.run, answers.run)
        else:  # one sandbox open at a time: slower, as safe
            answers = Answers(exercise, truth, _alone(reference.run, submission.close))
            result = run_search(search, exercise.entry, _alone(submission.run, reference.close), answers.run)
        answers.keep()
    return outcome_of(search, exercise.entry, result)


def outcome_of(search: Search, entry: str, result: SearchResult) -> Outcome:
    """What the report says of a search: for a visible one the smallest input found, its expected answer
    and the submission's; for a hidden one the verdict alone, no word computed from an input."""
    if result.problem:
        return uniform(search, Verdict.GRADER_ERROR, "the grader could not run this search" if search.hidden
                       else result.problem)
    if result.found is None and result.out_of_time:
        said = "" if search.hidden else f" after {result.tried} of {search.examples} inputs"
        return uniform(search, Verdict.TIMEOUT, f"the search ran out of its {search.seconds:g} s budget{said}")
    if result.found is None:
        return replace(uniform(search, Verdict.PASSED, f"{result.tried} generated inputs: every answer agrees "
                                                       f"with the reference's"), points=search.points)
    judged = result.found.outcome
    if search.hidden:
        words = HIDDEN_WORDS.get(judged.verdict, judged.feedback.split(":")[0])
        return uniform(search, judged.verdict, f"{words} on a generated input")
    call = call_text(entry, result.found.values)
    said = f": {judged.feedback}" if judged.feedback else ""
    found = replace(judged, points=0.0, input=call, limit_source=search.limits.cpu_origin,
                    feedback=f"found by the search: {call}, the smallest failing input{said}")
    return bounded(found, search.limits.output)

def uniform(search: Search, verdict: Verdict, feedback: str) -> Outcome:
    """The search's outcome with no input in it: skipped, passed, out of time, or the whole file's verdict."""
    return Outcome(test=search.name, verdict=verdict, points=0.0, max_points=search.points, hidden=search.hidden,
                   feedback=feedback, limit_seconds=search.limits.cpu, description=search.description,
                   limit_source=search.limits.cpu_origin)


def _coexist(backend: Backend) -> bool:
    """Whether two sandboxes of this process may be open at once: with a dedicated uid the harness ends
    every process of the uid between tests, which only Landlock's signal scope confines to its own."""
    inner = getattr(backend, "backend", backend)  # a wrapper (--watch's WarmBackend) names the real one
    isolation = getattr(inner, "isolation", None)
    if isolation is None or getattr(isolation, "uid", None) is None:
        return True
    from grader.sandbox.linux import landlock_scopes

    return bool(isolation.landlock) and landlock_scopes()


def _alone(run: Callable[[Test], RunResult], close_other: Callable[[], None]) -> Callable[[Test], RunResult]:
    """`run`, with the other sandbox closed first (started again on its next run)."""
    def alone(test: Test) -> RunResult:
        close_other()
        return run(test)
    return alone



def search_failures(exercise: Exercise, checks: list[tuple[str, str, tuple[Verdict, ...]]]) -> list[str]:
    """`grader validate`: a search must find the mistake of every wrong_answer and runtime_error reference
    (`checks`: each reference's folder, name and verdicts, the search's last); an accepted one must pass
    it, as every test (said by the references' own check)."""
    search = exercise.search
    if search is None:
        return []
    failures = []
    for folder, name, verdicts in checks:
        if folder in ("wrong_answer", "runtime_error") and len(verdicts) == len(exercise.tests) + 1 \
                and verdicts[-1] == Verdict.PASSED:
            failures.append(f"{folder}/{name}: the search '{search.name}' finds no input it fails on in "
                            f"{search.examples} examples; widen its strategies or try more examples")
    return failures
