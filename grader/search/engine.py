"""The search: Hypothesis, in the grader's own process, makes inputs; each is run by the reference in a
sandbox of its own and by the submission in the submission's sandbox, one fresh child per input, and the
two answers are judged here by the exercise's checker, as a test's are. The first input they disagree on
is shrunk. Nothing of the reference, and no expected answer, ever enters the submission's sandbox.

Deterministic: the seed is fixed, Hypothesis keeps no database and never reads a clock (no deadline, no
health checks, no phase but generate and shrink), so the same submission meets the same inputs in the
same order everywhere; counts, not times, bound the shrinking. Only the budget is a clock: a search that
runs out of it is a timeout, as a test that runs out of its CPU limit is."""

from __future__ import annotations

import marshal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from grader.model import MISSING, Fault, Outcome, RunResult, Search, Test, Verdict
from grader.records import record
from grader.search.strategies import arguments
from grader.verdicts import judge, run_once_more_if_borderline

SEED = 20_140_901  # fixed: the same inputs for every submission, in every process
MOST_TIMEOUTS = 3  # inputs that time out while shrinking, at most: each costs a whole CPU limit
SHORTEST_RUN = 0.1  # seconds of CPU: the least a run gets when the budget is nearly spent

Runner = Callable[[Test], RunResult]


@record
class Finding:
    """The smallest input found on which the submission disagrees with the reference."""

    values: tuple[object, ...]
    outcome: Outcome  # judged as a test with this input


@record
class SearchResult:
    found: Finding | None = None
    tried: int = 0  # inputs run before the first disagreement (or all of them)
    out_of_time: bool = False  # the budget ran out before every input was tried
    problem: str = ""  # why there is no result: the reference failed, the strategies broke (a grader error)


def example_test(search: Search, entry: str, values: tuple[object, ...], cpu: float | None = None) -> Test:
    """One input as a test: the entry called with the search's argument names bound to the values."""
    names = [name for name, _ in search.args]
    limits = search.limits if cpu is None else replace(search.limits, cpu=cpu, wall=None)
    return Test(name=search.name, call=f"{entry}({', '.join(names)})", stdin=None, compare="value",
                expect=MISSING, hidden=search.hidden, big=False, points=search.points, checker=search.checker,
                limits=limits, given=tuple(zip(names, values)), description=search.description)


@dataclass
class _State:
    search: Search
    entry: str
    submission: Runner
    reference: Runner
    deadline: float
    memo: dict[bytes, Outcome | None] = field(default_factory=dict)  # None: the reference refused it
    target: Verdict | None = None  # the first failure's verdict: shrinking keeps it
    tried: int = 0
    shrink_runs: int = 0
    timeouts: int = 0
    stopped: bool = False
    out_of_time: bool = False
    problem: str = ""

    def fails(self, values: tuple[object, ...]) -> bool:
        from hypothesis import assume

        key = _key(values)
        if key not in self.memo:
            if self.stopped or (self.target is not None and self.shrink_runs >= self.search.shrinks):
                return False  # no run: nothing new is interesting, so Hypothesis ends with what it has
            try:
                self.memo[key] = self._judged(values)
            except Exception as error:  # noqa: BLE001 - ours, never the submission's: Hypothesis must not shrink it
                self.problem, self.stopped = f"the search failed: {type(error).__name__}: {error}", True
                return False
        outcome = self.memo[key]
        assume(outcome is not None)  # the reference refused it: outside the exercise's inputs
        assert outcome is not None
        failing = outcome.verdict != Verdict.PASSED and self.target in (None, outcome.verdict)
        if failing and self.target is None:
            self.target = outcome.verdict
        return failing

    def _judged(self, values: tuple[object, ...]) -> Outcome | None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.stopped = self.out_of_time = True
            return Outcome(self.search.name, Verdict.PASSED, 0.0, 0.0)  # never run: counts as no failure
        test = example_test(self.search, self.entry, values, cpu=max(min(self.search.limits.cpu, left), SHORTEST_RUN))
        truth = self.reference(test)
        if truth.fault is Fault.RAISED and not truth.timed_out and not truth.sandbox_error:
            return None
        if truth.sandbox_error or truth.timed_out or truth.fault is not Fault.NONE or truth.output_truncated:
            why = truth.sandbox_error or ("it timed out" if truth.timed_out else f"it failed ({truth.fault})")
            self.problem, self.stopped = f"the reference failed on a generated input: {why}", True
            return Outcome(self.search.name, Verdict.PASSED, 0.0, 0.0)
        if self.target is None:
            self.tried += 1
        else:
            self.shrink_runs += 1
        outcome = judge(test, run_once_more_if_borderline(test, self.submission), truth.value)
        if outcome.verdict == Verdict.TIMEOUT and self.target is not None:
            self.timeouts += 1
            self.stopped = self.stopped or self.timeouts >= MOST_TIMEOUTS
        return outcome


def run_search(search: Search, entry: str, submission: Runner, reference: Runner) -> SearchResult:
    """Search for an input the two disagree on, within the search's examples, shrinks and seconds."""
    state = _State(search, entry, submission, reference, time.monotonic() + search.seconds)
    with _no_local_constants():
        return _found(state, search, rules_for(search))


def rules_for(search: Search) -> object:
    from hypothesis import HealthCheck, Phase, Verbosity, settings

    return settings(max_examples=search.examples, derandomize=True, database=None, deadline=None,
                    phases=(Phase.generate, Phase.shrink), verbosity=Verbosity.quiet,
                    suppress_health_check=list(HealthCheck), print_blob=False)


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis mixes into its inputs the constants it reads from the modules of the process that are
    not installed packages (and caches them in a .hypothesis folder of the working directory): from the
    grader's own modules when it runs from a checkout, and from whichever modules a server, a batch or a
    check happen to have loaded. The same inputs everywhere need none of them (pinned version: private name)."""
    from hypothesis.internal.conjecture import providers

    own = providers._get_local_constants
    providers._get_local_constants = providers.Constants
    providers.CONSTANTS_CACHE.cache.clear()  # what was drawn from them before
    try:
        yield
    finally:
        providers._get_local_constants = own
        providers.CONSTANTS_CACHE.cache.clear()


def _found(state: _State, search: Search, rules: object) -> SearchResult:
    from random import Random

    from hypothesis import find
    from hypothesis.errors import HypothesisException, NoSuchExample, Unsatisfiable

    found: tuple[object, ...] | None = None
    try:
        found = find(arguments(search.args), state.fails, settings=rules, random=Random(SEED))  # type: ignore[arg-type]
    except (NoSuchExample, Unsatisfiable):
        pass
    except HypothesisException as error:  # the strategies cannot be made (a dict keyed by lists...)
        return SearchResult(problem=f"the search's strategies fail: {type(error).__name__}: {error}")
    except (TypeError, ValueError) as error:
        return SearchResult(problem=f"the search's strategies fail: {type(error).__name__}: {error}")
    if state.problem:
        return SearchResult(tried=state.tried, problem=state.problem)
    if found is None:
        return SearchResult(tried=state.tried, out_of_time=state.out_of_time)
    outcome = state.memo[_key(found)]
    assert outcome is not None
    return SearchResult(Finding(found, outcome), state.tried, state.out_of_time)


def _key(values: tuple[object, ...]) -> bytes:
    """Equal inputs, equal keys (marshal tells 1 from 1.0 and True, and -0.0 from 0.0)."""
    return marshal.dumps(values)
