"""The server's database schema: its migrations, applied in order on start."""

from __future__ import annotations

from typing import Any

from grader.errors import UsageError

# Applied in order from the database's PRAGMA user_version up, in the transaction that opens it: an old
# state folder is upgraded in place on start. Only ever append.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: tokens, submissions, overrides
        """CREATE TABLE tokens (
            digest TEXT PRIMARY KEY,        -- sha256 of the token: the token itself is never stored
            student TEXT NOT NULL, staff INTEGER NOT NULL, created_at REAL NOT NULL)""",
        """CREATE TABLE submissions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            student TEXT NOT NULL, exercise TEXT NOT NULL,
            file TEXT NOT NULL,             -- relative to the state folder, chosen by the server
            sent_name TEXT NOT NULL,        -- the name the client gave: shown (escaped), never a path
            sha256 TEXT NOT NULL, submitted_at REAL NOT NULL,
            status TEXT NOT NULL,           -- queued, running, done, error
            attempts INTEGER NOT NULL DEFAULT 0,  -- how many times a worker was handed it
            claimed_by TEXT,                -- the server grading it (several may share a database)
            exercise_digest TEXT,           -- what the exercise was when it was graded (regrades compare it)
            report BLOB,                    -- the pickled Report, with staff details; None until graded
            error TEXT, graded_at REAL)""",
        "CREATE INDEX submissions_of ON submissions (student, exercise)",
        "CREATE INDEX submissions_by_status ON submissions (status)",
        """CREATE TABLE overrides (         -- a TA's score for a student's exercise: survives regrades
            student TEXT NOT NULL, exercise TEXT NOT NULL, score REAL NOT NULL, reason TEXT NOT NULL,
            staff_member TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (student, exercise))""",
    ),
    (  # 2: identical hand-ins are graded once, as in a batch: found by their content
        "CREATE INDEX submissions_by_content ON submissions (sha256, exercise)",
    ),
    (  # 3: how long its grading took on a worker: what a queue's wait is measured against
        "ALTER TABLE submissions ADD COLUMN grading_seconds REAL",
    ),
    (  # 4: the human half of grading: reviews, regrade requests, and the audit of every score change
        """CREATE TABLE reviews (           -- a TA's review of one submission: tied to its code, kept by regrades
            submission BIGINT PRIMARY KEY, student TEXT NOT NULL, exercise TEXT NOT NULL,
            items TEXT NOT NULL,            -- JSON: the rubric items ticked, with their points as reviewed
            comments TEXT NOT NULL,         -- JSON: [{"line": N, "text": ...}], lines of that submission's code
            summary TEXT NOT NULL, points REAL NOT NULL,
            staff_member TEXT NOT NULL, at REAL NOT NULL,
            released_at REAL)               -- NULL until staff release it: the student sees nothing before""",
        "CREATE INDEX reviews_of ON reviews (student, exercise)",
        """CREATE TABLE regrade_requests (  -- a student's question about a test or a rubric item of a submission
            id INTEGER PRIMARY KEY AUTOINCREMENT, submission BIGINT NOT NULL, student TEXT NOT NULL,
            exercise TEXT NOT NULL, about TEXT NOT NULL, status TEXT NOT NULL, at REAL NOT NULL)""",
        "CREATE INDEX regrade_requests_of ON regrade_requests (student)",
        """CREATE TABLE request_messages (  -- the thread of a regrade request, both sides
            id INTEGER PRIMARY KEY AUTOINCREMENT, request BIGINT NOT NULL, author TEXT NOT NULL,
            staff INTEGER NOT NULL, text TEXT NOT NULL, at REAL NOT NULL, score REAL)""",
        "CREATE INDEX request_messages_of ON request_messages (request)",
        """CREATE TABLE audit (             -- every score change: who, when, from what to what, why
            id INTEGER PRIMARY KEY AUTOINCREMENT, student TEXT NOT NULL, exercise TEXT NOT NULL,
            submission BIGINT, what TEXT NOT NULL, who TEXT NOT NULL, at REAL NOT NULL,
            before REAL, after REAL, why TEXT NOT NULL)""",
        "CREATE INDEX audit_of ON audit (student, at)",
    ),
    (  # 5: work in progress, saved as a student types (drafts.py): one row per student and exercise
        """CREATE TABLE drafts (
            student TEXT NOT NULL, exercise TEXT NOT NULL,
            revision INTEGER NOT NULL,      -- 1, 2, ...: a save names the one it was edited from
            code TEXT NOT NULL, sha256 TEXT NOT NULL, saved_at REAL NOT NULL,
            PRIMARY KEY (student, exercise))""",
    ),
    (  # 6: exams (exams_store.py): who started which when, what they did, what was graded at their end
        """CREATE TABLE exam_starts (
            exam TEXT NOT NULL, student TEXT NOT NULL,
            started_at REAL NOT NULL,       -- the server's clock: the duration runs from here
            test_run INTEGER NOT NULL,      -- staff trying the exam: never in the gradebook
            address TEXT, last_seen REAL NOT NULL,
            graded_at REAL,                 -- the last drafts submitted: NULL until the end's sweep did
            grading_by TEXT, grading_at REAL,  -- the server sweeping it (several may share a database)
            PRIMARY KEY (exam, student))""",
        """CREATE TABLE exam_log (          -- per student: opened, saves, disconnects, submissions, addresses
            id INTEGER PRIMARY KEY AUTOINCREMENT, exam TEXT NOT NULL, student TEXT NOT NULL,
            at REAL NOT NULL, what TEXT NOT NULL, detail TEXT NOT NULL)""",
        "CREATE INDEX exam_log_of ON exam_log (exam, student, at)",
        """CREATE TABLE exam_handins (      -- a draft submitted at a student's end: once, whatever restarts
            exam TEXT NOT NULL, student TEXT NOT NULL, exercise TEXT NOT NULL,
            submission BIGINT NOT NULL, revision INTEGER NOT NULL, test_run INTEGER NOT NULL,
            PRIMARY KEY (exam, student, exercise))""",
    ),
)


def migrate(db: Any) -> None:
    """Bring the database up to the last migration, inside the caller's transaction."""
    current = db.version()
    if current > len(MIGRATIONS):
        raise UsageError(f"the server's state was written by a newer grader (schema {current}); upgrade grader")
    for version in range(current, len(MIGRATIONS)):
        for statement in MIGRATIONS[version]:
            db.execute(statement)
    db.set_version(len(MIGRATIONS))
