"""The reference's answers to a search's inputs, kept in the grader's cache folder (never in a sandbox's
reach): the inputs a search tries first are the same for every submission, so a class's gradings run the
reference on them once. Keyed by everything an answer depends on: the reference's code, the exercise's
prelude and test set-up, the search as written, the entry, and Hypothesis's version."""

from __future__ import annotations

import marshal
from collections.abc import Callable
from importlib.metadata import version

from grader.cache import cache_dir, key_hash, read_pickle, write_pickle
from grader.handins.base import Handin
from grader.model import Exercise, Fault, RunResult, Test

RAISED = "raised"  # the reference raised: the input is outside the exercise's


class Answers:
    """A reference's runner that answers from the cache when it can; `keep()` writes what was new."""

    def __init__(self, exercise: Exercise, truth: Handin, run: Callable[[Test], RunResult]) -> None:
        digest = key_hash()
        for part in ("search-answers-1", version("hypothesis"), truth.digest(), exercise.prelude,
                     exercise.test_setup, repr(exercise.search), exercise.entry):
            digest.update(str(part).encode() + b"\0")
        self.path = cache_dir() / f"search-{digest.hexdigest()}.pickle"
        known = read_pickle(self.path)
        self.known: dict[bytes, object] = known if isinstance(known, dict) else {}
        self.new = False
        self._run = run

    def run(self, test: Test) -> RunResult:
        key = marshal.dumps(tuple(value for _, value in test.given))
        if key in self.known:
            answer = self.known[key]
            return RunResult(fault=Fault.RAISED) if answer == RAISED else RunResult(value=answer[0], has_value=True)  # type: ignore[index]
        result = self._run(test)
        clean = not (result.timed_out or result.sandbox_error or result.output_truncated)
        if clean and result.fault is Fault.RAISED:
            self.known[key], self.new = RAISED, True
        elif clean and result.fault is Fault.NONE and result.has_value:
            self.known[key], self.new = (result.value,), True
        return result

    def keep(self) -> None:
        if self.new:
            write_pickle(self.path, self.known)
