"""A batch from start to end: find the class, plan the work, grade what the database does not hold yet (as
results arrive, each is stored at once), then write the outputs from the database."""

from __future__ import annotations

import fcntl
import os
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from grader.batch.discover import ClassFolder, NameRule, discover
from grader.gradebook import Gradebook
from grader.batch.plan import Plan, make_plan
from grader.batch.progress import BatchProgress
from grader.batch.store import Store
from grader.course import Course
from grader.errors import UsageError
from grader.model import Exercise, Verdict
from grader.outputs import batch_outputs, output
from grader.records import record
from grader.workers.job import Graded
from grader.workers.opening import open_pool
from grader.workers.pool import Pool

DATABASE = "results.sqlite"


@record
class Options:
    submissions: Path
    exercises: Path | None = None  # the exercises folder; None: the bundled one
    out: Path = Path("grader-out")
    workers: int = 1
    cluster: str | None = None  # tcp://HOST:PORT or local:N
    rule: NameRule = field(default_factory=NameRule)
    layout: str = "auto"  # how the download is laid out (grader.batch.layouts); auto: by its platform's marks
    only: tuple[str, ...] = ()  # exercise ids; empty: every exercise some student handed in
    outputs: tuple[str, ...] = field(default_factory=lambda: batch_outputs(defaults_only=True))
    regrade: bool = False


@dataclass
class Tally:
    """What this run did, in student submissions (student x exercise) unless said otherwise."""

    submissions: int = 0
    reused: int = 0  # already in the database
    done: int = 0  # graded (or settled without running) during this run
    gradings: int = 0  # distinct submissions run in the sandbox during this run
    pending: int = 0  # distinct submissions still to run
    runner: str = ""
    wall_seconds: float = 0.0
    completed: bool = False


class Batch:
    def __init__(self, options: Options) -> None:
        self.options = options
        self.tally = Tally()
        self.course = Course.at(options.exercises)
        self.folder: ClassFolder | None = None
        self.plan: Plan | None = None
        self.store: Store | None = None
        self.pool: Pool | None = None
        self._lock: int | None = None
        self.limit_changes: list[str] = []  # exercises whose limits differ from the last run's in this folder
        self.spec_problems: list[str] = []  # of the specs that did not load

    # ------------------------------------------------------------ before grading
    def prepare(self) -> None:
        options = self.options
        exercises, self.spec_problems = self.course.load_valid()  # a broken spec: the rest is graded
        self.folder = discover(options.submissions, exercises, options.rule, options.layout,
                               unpack_into=options.out / "unpacked")
        chosen = self._choose(exercises, self.folder)
        self._take_output_folder()
        # Started now, local workers load while the plan is made on this core.
        self.pool = open_pool(options.workers, options.cluster, self.course.exercises_dir)
        self.pool.start()
        private = self.course.private_paths(options.submissions.resolve(), options.out.resolve())
        self.plan = make_plan(self.folder, chosen, private_paths=private,
                              rule=options.rule)
        self.store = Store(options.out / DATABASE)
        self.limit_changes = limit_changes(self.store.pinned_limits(), self.plan)
        if options.regrade:
            self.store.forget({row.key for row in self.plan.rows})
        self.store.begin_run(self._runner_description(), self.plan.exercise_rows, self.plan.rows)

    def _choose(self, exercises: list[Exercise], folder: ClassFolder) -> list[Exercise]:
        if self.options.only:
            for exercise_id in self.options.only:
                self.course.path_of(exercise_id)  # a usage error, with a "did you mean", for a typo
            return [e for e in exercises if e.id in self.options.only]
        handed_in = folder.handed_in()
        if not handed_in:
            raise UsageError(f"no file in the student folders of {folder.root} answers an exercise of "
                             f"{self.course.exercises_dir} (files are named <exercise-id>.py, or see --match)")
        return [e for e in exercises if e.id in handed_in]

    def _take_output_folder(self) -> None:
        out = self.options.out
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out} is a file, not a folder")
        out.mkdir(parents=True, exist_ok=True)
        self._lock = os.open(out / ".lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"another grader batch is writing to {out}; wait for it or choose another --out") \
                from None

    def _runner_description(self) -> str:
        return f"cluster {self.options.cluster}" if self.options.cluster else f"{self.options.workers} local"

    # ------------------------------------------------------------ grading
    def grade(self, progress: Console | None) -> None:
        """Grade every submission the database does not hold; stop cleanly (and resumably) on Ctrl-C."""
        assert self.plan is not None and self.store is not None
        plan, store, tally = self.plan, self.store, self.tally
        started = time.monotonic()
        stored = store.verdicts()
        tally.submissions = len(plan.rows)
        tally.reused = sum(1 for row in plan.rows if row.key in stored)
        counts: Counter[Verdict] = Counter(stored[row.key] for row in plan.rows if row.key in stored)
        sharing = plan.students_of()
        for key, report in plan.settled.items():  # missing and unreadable files: nothing to run
            if key not in stored and store.save(Graded(key, report, 0.0, 0.0, "-")):
                counts[report.verdict] += sharing[key]
                tally.done += sharing[key]
        jobs = [job for key, job in plan.jobs.items() if key not in stored]
        tally.pending = len(jobs)
        view = BatchProgress(progress or Console(quiet=True), tally.submissions, tally.reused + tally.done, counts)
        try:
            with view:
                if jobs:
                    pool = self.pool or open_pool(self.options.workers, self.options.cluster,
                                                  self.course.exercises_dir)
                    self.pool = pool
                    tally.runner = pool.describe()
                    for job in jobs:
                        pool.submit(job)
                    for done in pool.drain():
                        graded = done.graded
                        store.save(graded)
                        tally.gradings += 1
                        tally.pending -= 1
                        tally.done += sharing[graded.key]
                        view.advance(graded.report.verdict, sharing[graded.key])
            tally.completed = True
            self._close_pool()  # the detector grades here, on this core: the workers are done
            store.save_variants(self._variant_marks())
        finally:
            self._close_pool()
            tally.wall_seconds = time.monotonic() - started
            store.finish_run(tally.gradings, tally.completed)

    def _variant_marks(self) -> dict[tuple[str, str], tuple[str, str]]:
        """Each student's variant (params), and the classmate whose variant a wrong answer solves."""
        from grader.variants.detect import solved_variant, worth_trying

        assert self.plan is not None and self.store is not None and self.folder is not None
        plan, verdicts = self.plan, self.store.verdicts()
        private = self.course.private_paths(self.options.submissions.resolve(), self.options.out.resolve())
        marks: dict[tuple[str, str], tuple[str, str]] = {}
        for row in plan.rows:
            own = plan.variants.get((row.student, row.exercise))
            if own is None:
                continue
            solves = ""
            job = plan.jobs.get(row.key)
            if job is not None and row.file is not None and worth_trying(verdicts.get(row.key, Verdict.PASSED)):
                candidates = list(plan.candidates[row.exercise].values())
                solves = solved_variant(job.text, self.folder.root / row.file, own, candidates, row.student, private)
            marks[(row.student, row.exercise)] = (own, solves)
        return marks

    # ------------------------------------------------------------ after grading
    def gradebook(self) -> Gradebook:
        assert self.store is not None
        return Gradebook.load(self.store)

    def write_outputs(self, book: Gradebook) -> list[Path]:
        written: list[Path] = []
        # The folder graded: a zipped class is read from where it was unpacked.
        root = self.folder.root if self.folder is not None else self.options.submissions
        book = replace(book, submissions=root, specs=tuple(self.plan.exercises))
        for name in self.options.outputs:
            written += output(name).write(book, self.options.out)
        return written

    def _close_pool(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def close(self) -> None:
        self._close_pool()
        if self.store is not None:
            self.store.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def limit_changes(pinned: dict[str, dict[str, list[object]]], plan: Plan) -> list[str]:
    """Exercises whose CPU limits differ from those the folder's last run graded under: their stored results
    are not reused (the limits are in the key) but graded again, and the batch says so."""
    changes = []
    for row in plan.exercise_rows:
        before = pinned.get(row.id) or {}
        moved = [f"{test} {old[0]:.2f} s ({old[1]}) -> {row.limits[test][0]:.2f} s ({row.limits[test][1]})"
                 for test, old in before.items() if test in row.limits and old[0] != row.limits[test][0]]
        if moved:
            changes.append(f"{row.id}: CPU limits changed since the last run here, so its results are graded "
                           f"again: {'; '.join(moved[:3])}{' ...' if len(moved) > 3 else ''}")
    return changes
