"""Grade the mutants of each exercise's accepted references as a batch grades a class, then tell the
surviving ones apart from their references on a few probes (grader/mutants/probes.py).

Each mutant is a student's file in a class folder made for the run (<tmp>/<exercise>.<n>/<exercise>.py):
the batch's own plan (grader/batch/plan.py) reads it, keys it and makes its job, and the batch's worker
pool (grader/workers/) grades it in the sandbox under the exercise's limits, every test run."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grader.batch.discover import NameRule, discover
from grader.batch.plan import make_plan
from grader.course import Course
from grader.kinds import kind_of
from grader.model import Exercise, Outcome, Report, Verdict
from grader.mutants.probes import probe_exercise, probe_input, same_answer
from grader.mutants.rules import Mutant, make_mutants
from grader.records import record
from grader.validation.references import ACCEPTED, find_references
from grader.workers.opening import open_pool

MOST = 40  # mutants per exercise unless --most says otherwise: ~40 make a course as long as its class


class Status:
    KILLED = "killed"  # a test failed it (not only by its time limit)
    TIMED_OUT = "timed_out"  # its only failures are timeouts: caught, but only by the limit
    SURVIVED = "survived"  # it passed every test, and a probe tells it from its reference
    EQUIVALENT = "equivalent"  # it passed every test and answers every probe as its reference does
    ERROR = "error"  # the grader could not grade it (a grader error): counted in no rate


@record
class MutantResult:
    mutant: Mutant
    status: str
    verdicts: tuple[tuple[str, str], ...]  # (test, verdict) in the spec's order
    hidden_only: bool = False  # killed, but only by hidden tests: the visible tests alone would not catch it
    why: str = ""  # survived: the probe that tells it apart; equivalent: why it is taken as one

    @property
    def killed_by(self) -> tuple[str, ...]:
        return tuple(test for test, verdict in self.verdicts if verdict not in (Verdict.PASSED, Verdict.SKIPPED))

    @property
    def passed(self) -> tuple[str, ...]:
        return tuple(test for test, verdict in self.verdicts if verdict == Verdict.PASSED)


@dataclass
class ExerciseMutants:
    exercise: Exercise
    references: dict[str, str] = field(default_factory=dict)  # file name -> source
    made: int = 0  # before --most chose among them
    results: list[MutantResult] = field(default_factory=list)
    skipped: str = ""  # why no mutant was made
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def kill_rate(self) -> float | None:
        """Killed or timed out, of the mutants that are not equivalent; None when there are none."""
        counted = [r for r in self.results if r.status not in (Status.EQUIVALENT, Status.ERROR)]
        if not counted:
            return None
        return sum(1 for r in counted if r.status in (Status.KILLED, Status.TIMED_OUT)) / len(counted)

    @property
    def floor(self) -> float | None:
        return self.exercise.mutants.kill_at_least

    @property
    def ok(self) -> bool:
        rate = self.kill_rate
        return self.floor is None or rate is None or rate >= self.floor

    def killed_by_test(self) -> dict[str, list[str]]:
        killed: dict[str, list[str]] = {t.name: [] for t in self.exercise.tests}
        for result in self.results:
            if result.status in (Status.KILLED, Status.TIMED_OUT):
                for test in result.killed_by:
                    killed[test].append(result.mutant.id)
        return killed


def mutate_exercises(course: Course, exercises: list[Exercise], *, workers: int, most: int = MOST) -> list[ExerciseMutants]:
    """Every exercise's mutants graded (one pool for all of them), the survivors probed."""
    started = time.monotonic()
    found = [_mutants_of(exercise, most) for exercise in exercises]
    graded = [f for f in found if f.results]
    pending = {f.exercise.id: [r.mutant for r in f.results] for f in graded}
    reports = _grade(course, [f.exercise for f in graded], pending, workers)
    for entry in graded:
        entry.results = [_classified(r.mutant, reports[(entry.exercise.id, r.mutant.id)], entry.exercise)
                         for r in entry.results]
    _probe_survivors(course, graded, workers)
    for entry in found:
        _apply_marks(entry)
        entry.seconds = time.monotonic() - started
    return found


def _mutants_of(exercise: Exercise, most: int) -> ExerciseMutants:
    entry = ExerciseMutants(exercise)
    kind = kind_of(exercise.kind)
    if not kind.runs_code or kind.suffix != ".py":
        entry.skipped = f"a {exercise.kind} exercise is answered as text: there is no code to mutate"
        return entry
    references, _ = find_references(exercise)
    every: list[list[Mutant]] = []
    for reference in (r for r in references if r.folder == ACCEPTED and r.path.is_file()):
        source = reference.path.read_text(encoding="utf-8")
        entry.references[reference.path.name] = source
        try:
            every.append(make_mutants(source, reference.path.name))
        except SyntaxError as error:
            entry.notes.append(f"{reference.path.name} does not parse: {error}")
    entry.made = sum(len(m) for m in every)
    chosen = choose(every, most)
    if not chosen:
        entry.skipped = "no accepted reference gives a mutant" if entry.references else "no accepted reference"
    entry.results = [MutantResult(m, Status.ERROR, ()) for m in chosen]
    return entry


def choose(per_reference: list[list[Mutant]], most: int) -> list[Mutant]:
    """At most `most` mutants, taken in turn from each (reference, rule) so that every rule of every
    reference is tried before any gives a second one; in the order they were made."""
    buckets: dict[tuple[str, str], list[Mutant]] = {}
    for mutants in per_reference:
        for mutant in mutants:
            buckets.setdefault((mutant.reference, mutant.rule), []).append(mutant)
    chosen: list[Mutant] = []
    queues = [iter(b) for b in buckets.values()]
    while queues and len(chosen) < most:
        still = []
        for queue in queues:
            mutant = next(queue, None)
            if mutant is not None and len(chosen) < most:
                chosen.append(mutant)
                still.append(queue)
        queues = still
    order = {id(m): n for n, m in enumerate(m for mutants in per_reference for m in mutants)}
    return sorted(chosen, key=lambda m: order[id(m)])


def _grade(course: Course, exercises: list[Exercise], files: dict[str, list[tuple[str, str]] | list[Mutant]],
           workers: int) -> dict[tuple[str, str], Report]:
    """(exercise id, name) -> report, each file graded as a student's hand-in by the batch's plan and pool.
    `files`: per exercise, mutants, or (name, source) pairs."""
    if not exercises:
        return {}
    with tempfile.TemporaryDirectory(prefix="grader-mutants-") as tmp:
        root = Path(tmp)
        names: dict[tuple[str, str], tuple[str, str]] = {}  # (student, exercise) -> (exercise, name)
        for exercise in exercises:
            for number, item in enumerate(files[exercise.id]):
                name, source = (item.id, item.source) if isinstance(item, Mutant) else item
                student = f"{exercise.id}.{number:04d}"
                (root / student).mkdir()
                (root / student / f"{exercise.id}.py").write_text(source, encoding="utf-8")
                names[(student, exercise.id)] = (exercise.id, name)
        folder = discover(root, exercises, NameRule(), layout="folders")
        plan = make_plan(folder, exercises, private_paths=course.private_paths(root))  # a batch runs every test
        reports = dict(plan.settled)
        jobs = list(plan.jobs.values())
        if jobs:
            pool = open_pool(min(workers, len(jobs)), None, course.exercises_dir)
            try:
                for job in jobs:
                    pool.submit(job)
                for done in pool.drain():
                    reports[done.job.key] = done.graded.report
            finally:
                pool.close()
        return {names[(row.student, row.exercise)]: reports[row.key] for row in plan.rows
                if (row.student, row.exercise) in names}


def _classified(mutant: Mutant, report: Report, exercise: Exercise) -> MutantResult:
    verdicts = tuple((o.test, str(o.verdict)) for o in report.outcomes)
    failed = [o for o in report.outcomes if o.verdict not in (Verdict.PASSED, Verdict.SKIPPED)]
    if any(o.verdict == Verdict.GRADER_ERROR for o in failed):
        why = next(o.feedback for o in failed if o.verdict == Verdict.GRADER_ERROR)
        return MutantResult(mutant, Status.ERROR, verdicts, why=why)
    if not failed:
        return MutantResult(mutant, Status.SURVIVED, verdicts)
    status = Status.TIMED_OUT if all(o.verdict == Verdict.TIMEOUT for o in failed) else Status.KILLED
    return MutantResult(mutant, status, verdicts, hidden_only=all(o.hidden for o in failed))


def _probe_survivors(course: Course, entries: list[ExerciseMutants], workers: int) -> None:
    """Grade each survivor and its reference on the exercise's probes; a survivor that answers every probe
    as its reference does is equivalent."""
    probed: list[Exercise] = []
    files: dict[str, list[tuple[str, str]]] = {}
    marked = {e.exercise.id: dict(e.exercise.mutants.equivalent) for e in entries}
    for entry in entries:
        survivors = [r for r in entry.results if r.status == Status.SURVIVED
                     and r.mutant.id not in marked[entry.exercise.id]]
        probes = probe_exercise(entry.exercise) if survivors else None
        if probes is None:
            continue
        probed.append(probes)
        files[entry.exercise.id] = [("reference:" + name, entry.references[name])
                                    for name in sorted({r.mutant.reference for r in survivors})]
        files[entry.exercise.id] += [(r.mutant.id, r.mutant.source) for r in survivors]
    reports = _grade(course, probed, files, workers)  # type: ignore[arg-type]
    for entry in entries:
        if entry.exercise.id not in files:
            continue
        probes = next(p for p in probed if p.id == entry.exercise.id)
        entry.results = [_judged_on_probes(r, reports, probes) for r in entry.results]


def _judged_on_probes(result: MutantResult, reports: dict[tuple[str, str], Report], probes: Exercise) -> MutantResult:
    exercise_id = probes.id
    mine = reports.get((exercise_id, result.mutant.id))
    if result.status != Status.SURVIVED or mine is None:
        return result
    theirs = reports[(exercise_id, "reference:" + result.mutant.reference)]
    tests = {t.name: t for t in probes.tests}
    for outcome, reference in zip(mine.outcomes, theirs.outcomes):
        if not same_answer(outcome, reference):
            return MutantResult(result.mutant, Status.SURVIVED, result.verdicts,
                                why=f"{probe_input(tests[outcome.test])} tells it apart: it gets "
                                    f"{_answer(outcome)}, the reference {_answer(reference)}; add it as a test")
    return MutantResult(result.mutant, Status.EQUIVALENT, result.verdicts,
                        why=f"answers {_probes(len(probes.tests))} as {result.mutant.reference} does")


def _probes(count: int) -> str:
    return "the probe" if count == 1 else f"all {count} probes"


def _answer(outcome: Outcome) -> str:
    if outcome.verdict in (Verdict.WRONG_ANSWER, Verdict.PASSED) and outcome.actual is not None:
        text = outcome.actual.strip()
        return text if len(text) <= 80 else text[:77] + "..."
    return str(outcome.verdict).replace("_", " ")


def _apply_marks(entry: ExerciseMutants) -> None:
    """The spec's equivalent mutants set apart, with its reasons; a mark that fits no survivor is a note."""
    marks = dict(entry.exercise.mutants.equivalent)
    results = []
    for result in entry.results:
        reason = marks.pop(result.mutant.id, None)
        if reason is not None and result.status in (Status.SURVIVED, Status.EQUIVALENT):
            result = MutantResult(result.mutant, Status.EQUIVALENT, result.verdicts, why=f"marked: {reason}")
        elif reason is not None:
            entry.notes.append(f"{result.mutant.id} is marked equivalent, but a test {result.status.replace('_', ' ')} "
                               f"it: remove the mark")
        results.append(result)
    entry.results = results
    made = {r.mutant.id for r in results}
    entry.notes += [f"{mutant_id} is marked equivalent but no such mutant was graded (the reference changed, "
                    f"or --most left it out)" for mutant_id in marks if mutant_id not in made]


def by_status(results: Iterable[MutantResult], status: str) -> Iterator[MutantResult]:
    return (r for r in results if r.status == status)
