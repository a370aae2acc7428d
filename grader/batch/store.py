"""The batch's SQLite database: every grading as it arrives, so a killed batch resumes where it stopped.

Only the main process writes. Each grading (its summary row and one row per test) is one transaction, so
a kill at any moment leaves it either whole or absent; primary keys make a duplicate impossible.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path

from grader.errors import UsageError
from grader.model import Outcome, Report, StaffDetail, Verdict
from grader.quality.data import QualityResult
from grader.records import record
from grader.workers.job import Graded, GradingKey

FIRST_SCHEMA = "1"  # what SCHEMA creates; MIGRATIONS bring it, or an old store, up to SCHEMA_VERSION
SCHEMA_VERSION = 7  # PRAGMA user_version of an up-to-date store
KEY = "submission_hash, exercise_hash, grader_version, run_all"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (            -- one row per `grader batch` invocation
    run_id INTEGER PRIMARY KEY, started_at REAL NOT NULL, finished_at REAL, workers TEXT NOT NULL,
    graded INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS exercises (       -- the exercises of the latest run
    exercise TEXT PRIMARY KEY, title TEXT NOT NULL, kind TEXT NOT NULL, exercise_hash TEXT NOT NULL,
    max_score REAL NOT NULL, tests TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (     -- the class of the latest run: student x exercise -> grading
    student TEXT NOT NULL, exercise TEXT NOT NULL, file TEXT,
    submission_hash TEXT NOT NULL, exercise_hash TEXT NOT NULL, grader_version TEXT NOT NULL,
    run_all INTEGER NOT NULL, PRIMARY KEY (student, exercise));
CREATE TABLE IF NOT EXISTS gradings (        -- one per distinct submission text x exercise x grader
    submission_hash TEXT NOT NULL, exercise_hash TEXT NOT NULL, grader_version TEXT NOT NULL,
    run_all INTEGER NOT NULL, exercise TEXT NOT NULL, label TEXT NOT NULL, verdict TEXT NOT NULL,
    score REAL NOT NULL, max_score REAL NOT NULL,
    cpu_seconds REAL NOT NULL,               -- the sandboxed processes' CPU (the submission's own)
    grader_cpu_seconds REAL NOT NULL,        -- the worker's own CPU for it
    wall_seconds REAL NOT NULL, isolation TEXT NOT NULL, worker TEXT NOT NULL, run_id INTEGER NOT NULL,
    graded_at REAL NOT NULL,
    PRIMARY KEY ({KEY}));
CREATE TABLE IF NOT EXISTS outcomes (        -- one row per graded submission x test
    submission_hash TEXT NOT NULL, exercise_hash TEXT NOT NULL, grader_version TEXT NOT NULL,
    run_all INTEGER NOT NULL, position INTEGER NOT NULL, test TEXT NOT NULL, verdict TEXT NOT NULL,
    points REAL NOT NULL, max_points REAL NOT NULL, hidden INTEGER NOT NULL, big INTEGER NOT NULL,
    feedback TEXT NOT NULL, details TEXT NOT NULL, expected TEXT, actual TEXT, cpu_seconds REAL NOT NULL,
    limit_seconds REAL NOT NULL, PRIMARY KEY ({KEY}, position),
    FOREIGN KEY ({KEY}) REFERENCES gradings ({KEY}));
CREATE VIEW IF NOT EXISTS results AS         -- the class's results: one row per student x exercise x test
    SELECT s.student, s.exercise, s.file, o.* FROM submissions s JOIN outcomes o USING ({KEY});
"""

# Applied in order, each in the transaction that opens the store, from the store's PRAGMA user_version up:
# an old store is upgraded in place and keeps every result. Only ever append.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (  # the limits each result was graded under; notes on the hand-in; hidden tests' details for staff
        "ALTER TABLE exercises ADD COLUMN limits TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE outcomes ADD COLUMN limit_source TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE gradings ADD COLUMN notes TEXT NOT NULL DEFAULT '[]'",
        f"""CREATE TABLE staff_details (         -- hidden tests: never in anything a student receives
            submission_hash TEXT NOT NULL, exercise_hash TEXT NOT NULL, grader_version TEXT NOT NULL,
            run_all INTEGER NOT NULL, test TEXT NOT NULL, expected TEXT NOT NULL, actual TEXT NOT NULL,
            traceback TEXT NOT NULL, PRIMARY KEY ({KEY}, test),
            FOREIGN KEY ({KEY}) REFERENCES gradings ({KEY}))""",
    ),
    3: (  # a visible test's input, as the student's page shows it
        "ALTER TABLE outcomes ADD COLUMN input TEXT",
    ),
    4: (  # what a visible test printed (bounded), as `grader check` shows it: the gradebook's formats carry it
        "ALTER TABLE outcomes ADD COLUMN stdout TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE outcomes ADD COLUMN stderr TEXT NOT NULL DEFAULT ''",
    ),
    5: (  # a hidden test's input, for staff: which call failed (grader batch show, the staff pages)
        "ALTER TABLE staff_details ADD COLUMN input TEXT NOT NULL DEFAULT ''",
    ),
    6: (  # the spec's `quality:` on the hand-in (the report's JSON section); '' when the spec has none
        "ALTER TABLE gradings ADD COLUMN quality TEXT NOT NULL DEFAULT ''",
    ),
    7: (  # params: each student's variant, and the classmate whose variant a failing hand-in solves
        """CREATE TABLE variants (
            student TEXT NOT NULL, exercise TEXT NOT NULL, variant TEXT NOT NULL,
            solves TEXT NOT NULL DEFAULT '', PRIMARY KEY (student, exercise))""",
    ),
}


def _quality_text(report: Report) -> str:
    from grader.quality.shown import quality_json

    return json.dumps(quality_json(report.quality), sort_keys=True) if report.quality is not None else ""


def _quality_of(text: str) -> QualityResult | None:
    from grader.quality.shown import quality_from_json

    return quality_from_json(json.loads(text)) if text else None


def migrate(db: sqlite3.Connection) -> None:
    """Bring the store up to SCHEMA_VERSION (inside the caller's transaction)."""
    current = int(db.execute("PRAGMA user_version").fetchone()[0]) or int(FIRST_SCHEMA)
    if current > SCHEMA_VERSION:
        raise UsageError(f"the store was written by a newer grader batch (schema {current}); upgrade grader")
    for version in range(current + 1, SCHEMA_VERSION + 1):
        for statement in MIGRATIONS[version]:
            db.execute(statement)
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(version),))
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@record
class ExerciseRow:
    id: str
    title: str
    kind: str
    digest: str  # the exercise part of the grading key
    max_score: float
    tests: list[dict[str, object]]  # name, points, hidden, big: enough to write a gradebook for absent files
    limits: dict[str, list[object]] = field(default_factory=dict)  # test -> [CPU s, where it came from]: pinned


@record
class SubmissionRow:
    student: str
    exercise: str
    file: str | None  # relative to the submissions folder; None when missing
    key: GradingKey


@record
class StoredGrading:
    report: Report
    verdict: Verdict  # the report's, as stored: no need to work it out again
    cpu_seconds: float
    wall_seconds: float
    run_id: int


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        # isolation_level=None: transactions are explicit (BEGIN ... COMMIT), never implied.
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives a killed process, fsyncs less
        self.db.execute("PRAGMA foreign_keys=ON")
        with self.transaction():
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            found = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if found is None:
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (FIRST_SCHEMA,))
            elif found[0] not in {str(v) for v in range(1, SCHEMA_VERSION + 1)}:
                raise UsageError(f"{path} was written by a newer grader batch (schema {found[0]}); "
                                 f"upgrade grader, or choose a new --out folder")
            migrate(self.db)
        self.run_id = 0

    def transaction(self) -> _Transaction:
        return _Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------ a run
    def begin_run(self, workers: str, exercises: Iterable[ExerciseRow], rows: Iterable[SubmissionRow]) -> None:
        """Record this run and replace the class (students, files, exercises) with what is on disk now."""
        with self.transaction():
            cursor = self.db.execute("INSERT INTO runs (started_at, workers) VALUES (?, ?)", (time.time(), workers))
            self.run_id = int(cursor.lastrowid or 0)
            self.db.execute("DELETE FROM exercises")
            self.db.executemany("INSERT INTO exercises (exercise, title, kind, exercise_hash, max_score, tests, "
                                "limits) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                [(e.id, e.title, e.kind, e.digest, e.max_score, json.dumps(e.tests),
                                  json.dumps(e.limits)) for e in exercises])
            self.db.execute("DELETE FROM submissions")
            self.db.executemany("INSERT INTO submissions VALUES (?, ?, ?, ?, ?, ?, ?)",
                                [_storable((r.student, r.exercise, r.file, *_key(r.key))) for r in rows])

    def save_variants(self, marks: dict[tuple[str, str], tuple[str, str]]) -> None:
        """(student, exercise) -> (their variant's id, the classmate whose variant the hand-in solves or "")."""
        with self.transaction():
            self.db.execute("DELETE FROM variants")
            self.db.executemany("INSERT INTO variants VALUES (?, ?, ?, ?)",
                                [(s, e, variant, solves) for (s, e), (variant, solves) in marks.items()])

    def variants(self) -> dict[tuple[str, str], tuple[str, str]]:
        rows = self.db.execute("SELECT student, exercise, variant, solves FROM variants")
        return {(s, e): (variant, solves) for s, e, variant, solves in rows}

    def finish_run(self, graded: int, completed: bool) -> None:
        with self.transaction():
            self.db.execute("UPDATE runs SET graded = ?, finished_at = ? WHERE run_id = ?",
                            (graded, time.time() if completed else None, self.run_id))

    def forget(self, keys: Iterable[GradingKey]) -> None:
        """Drop these gradings (--regrade), so that they are graded again."""
        with self.transaction():
            for key in keys:
                where = "submission_hash=? AND exercise_hash=? AND grader_version=? AND run_all=?"
                self.db.execute(f"DELETE FROM outcomes WHERE {where}", _key(key))
                self.db.execute(f"DELETE FROM staff_details WHERE {where}", _key(key))
                self.db.execute(f"DELETE FROM gradings WHERE {where}", _key(key))

    def save(self, graded: Graded) -> bool:
        """Store one grading whole; False (and nothing written) when it is already there."""
        report = graded.report
        with self.transaction():
            cursor = self.db.execute(
                f"INSERT OR IGNORE INTO gradings ({KEY}, exercise, label, verdict, score, max_score, cpu_seconds, "
                "grader_cpu_seconds, wall_seconds, isolation, worker, run_id, graded_at, notes, quality) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _storable((*_key(graded.key), report.exercise, report.submission, str(report.verdict), report.score,
                           report.max_score, graded.cpu_seconds, graded.grader_cpu_seconds, graded.wall_seconds,
                           report.isolation, graded.worker, self.run_id, time.time(),
                           json.dumps(list(report.notes)), _quality_text(report))))
            if cursor.rowcount == 0:
                return False
            self.db.executemany(
                f"INSERT INTO outcomes ({KEY}, position, test, verdict, points, max_points, hidden, big, feedback, "
                "details, expected, actual, cpu_seconds, limit_seconds, limit_source, input, stdout, stderr) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_storable((*_key(graded.key), position, o.test, str(o.verdict), o.points, o.max_points,
                            int(o.hidden), int(o.big), o.feedback, o.details, o.expected, o.actual, o.cpu_seconds,
                            o.limit_seconds, o.limit_source, o.input, o.stdout, o.stderr))
                 for position, o in enumerate(report.outcomes)])
            self.db.executemany(
                f"INSERT OR IGNORE INTO staff_details ({KEY}, test, expected, actual, traceback, input) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_storable((*_key(graded.key), d.test, d.expected, d.actual, d.traceback, d.input))
                 for d in report.staff])
        return True

    # ------------------------------------------------------------ reading back
    def exercises(self) -> list[ExerciseRow]:
        rows = self.db.execute("SELECT exercise, title, kind, exercise_hash, max_score, tests, limits "
                               "FROM exercises ORDER BY exercise")
        return [ExerciseRow(i, title, kind, digest, max_score, json.loads(tests), json.loads(limits))
                for i, title, kind, digest, max_score, tests, limits in rows]

    def submissions(self) -> list[SubmissionRow]:
        rows = self.db.execute(f"SELECT student, exercise, file, {KEY} FROM submissions ORDER BY student, exercise")
        return [SubmissionRow(student, exercise, file, GradingKey(s, e, g, bool(a)))
                for student, exercise, file, s, e, g, a in rows]

    def gradings(self) -> dict[GradingKey, StoredGrading]:
        """Every grading the current class refers to, with its outcomes in test order."""
        outcomes: dict[GradingKey, list[Outcome]] = {}
        query = (f"SELECT {KEY}, test, verdict, points, max_points, hidden, big, feedback, details, expected, "
                 f"actual, cpu_seconds, limit_seconds, limit_source, input, stdout, stderr FROM outcomes WHERE ({KEY}) IN "
                 f"(SELECT {KEY} FROM submissions) ORDER BY {KEY}, position")
        for s, e, g, a, test, verdict, points, max_points, hidden, big, feedback, details, expected, actual, \
                cpu, limit, source, given, printed, errors in self.db.execute(query):
            outcomes.setdefault(GradingKey(s, e, g, bool(a)), []).append(Outcome(
                test=test, verdict=Verdict(verdict), points=points, max_points=max_points, hidden=bool(hidden),
                big=bool(big), feedback=feedback, details=details, expected=expected, actual=actual,
                cpu_seconds=cpu, limit_seconds=limit, limit_source=source, input=given, stdout=printed,
                stderr=errors))
        found: dict[GradingKey, StoredGrading] = {}
        query = (f"SELECT {KEY}, exercise, label, isolation, verdict, cpu_seconds, wall_seconds, run_id, notes, "
                 f"quality FROM gradings WHERE ({KEY}) IN (SELECT {KEY} FROM submissions)")
        for s, e, g, a, exercise, label, isolation, verdict, cpu, wall, run_id, notes, quality \
                in self.db.execute(query):
            key = GradingKey(s, e, g, bool(a))
            report = Report(exercise, label, tuple(outcomes.get(key, [])), isolation, notes=tuple(json.loads(notes)),
                            quality=_quality_of(quality))
            found[key] = StoredGrading(report, Verdict(verdict), cpu, wall, run_id)
        return found

    def verdicts(self) -> dict[GradingKey, Verdict]:
        """The verdict of every grading the current class refers to (what a resumed run starts from)."""
        query = f"SELECT {KEY}, verdict FROM gradings WHERE ({KEY}) IN (SELECT {KEY} FROM submissions)"
        return {GradingKey(s, e, g, bool(a)): Verdict(v) for s, e, g, a, v in self.db.execute(query)}

    def staff_details(self, key: GradingKey) -> list[StaffDetail]:
        """The hidden tests' details of one grading, for staff (`grader batch show`, the staff pages)."""
        where = "submission_hash=? AND exercise_hash=? AND grader_version=? AND run_all=?"
        rows = self.db.execute(f"SELECT test, expected, actual, traceback, input FROM staff_details WHERE {where}",
                               _key(key))
        return [StaffDetail(*row) for row in rows]

    def every_staff_detail(self) -> dict[GradingKey, list[StaffDetail]]:
        """The hidden tests' details of every grading the current class refers to."""
        query = (f"SELECT {KEY}, test, expected, actual, traceback, input FROM staff_details WHERE ({KEY}) IN "
                 f"(SELECT {KEY} FROM submissions)")
        found: dict[GradingKey, list[StaffDetail]] = {}
        for s, e, g, a, *detail in self.db.execute(query):
            found.setdefault(GradingKey(s, e, g, bool(a)), []).append(StaffDetail(*detail))
        return found

    def pinned_limits(self) -> dict[str, dict[str, list[object]]]:
        """exercise -> test -> [CPU s, where it came from], as the latest run graded them."""
        return {e.id: e.limits for e in self.exercises()}

    def count_of(self, exercise: str) -> int:
        """How many student submissions of the latest run answer `exercise` with a file."""
        query = "SELECT COUNT(*) FROM submissions WHERE exercise = ? AND file IS NOT NULL"
        return int(self.db.execute(query, (exercise,)).fetchone()[0])


def _storable(values: tuple[object, ...]) -> tuple[object, ...]:
    """A row as SQLite takes it: text is UTF-8, so a lone surrogate (a file name's undecodable byte, an
    exception message a submission made) is stored as its escape, \\udce9, rather than failing the batch."""
    return tuple(value.encode("utf-8", "backslashreplace").decode("utf-8") if type(value) is str else value
                 for value in values)


def _key(key: GradingKey) -> tuple[str, str, str, int]:
    return key.submission, key.exercise, key.grader, int(key.run_all)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when the block raises (KeyboardInterrupt included)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
