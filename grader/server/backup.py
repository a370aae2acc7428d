"""`grader serve backup|restore|verify`: one consistent snapshot of a course server, and the proof that it
restores to the same gradebook.

A snapshot is a folder: the database (SQLite's online backup, or PostgreSQL's `pg_dump` in its custom
format), every stored hand-in, the course's files (specs, references, the course file), and `manifest.json`
with each file's SHA-256 and the gradebook's. The database is copied first and the hand-ins after: a stored
hand-in's file is written before its row and never changed, so every row in the copy finds its file (a file
with no row yet is harmless). The gradebook's digest is computed from the snapshot itself, restored to a
scratch place, so `verify` compares like with like whatever the live server did since."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from grader.errors import UsageError

MANIFEST = "manifest.json"
SQLITE_COPY = "database/state.sqlite"
POSTGRES_DUMP = "database/postgres.dump"
HANDINS = "uploads"
COURSE = "course"
FORMAT = 1  # the snapshot's own layout; a newer one is refused by an older grader


@dataclass(frozen=True)
class Source:
    """Where a server's state lives: its folder, and PostgreSQL's URL when the database is there."""

    state: Path
    database: str | None = None


def backup(source: Source, course_root: Path, target: Path) -> dict[str, object]:
    """Write a snapshot of `source` and the course at `course_root` into the new folder `target`."""
    from grader.server.state import DATABASE, UPLOADS

    if target.exists() and any(target.iterdir()):
        raise UsageError(f"{target} is not empty: a snapshot goes into a new folder")
    if source.database is None and not (source.state / DATABASE).is_file():
        raise UsageError(f"no server state in {source.state} (no {DATABASE})")
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    (target / "database").mkdir(mode=0o700)
    if source.database:
        _run([_postgres_program("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
              f"--file={target / POSTGRES_DUMP}", f"--dbname={source.database}"], "pg_dump")
    else:
        _sqlite_backup(source.state / DATABASE, target / SQLITE_COPY)
    _copy_handins(source.state / UPLOADS, target / HANDINS)
    _copy_course(course_root, target / COURSE)
    manifest: dict[str, object] = {
        "format": FORMAT, "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "grader": _version(), "database": "postgresql" if source.database else "sqlite",
        "files": _hashes(target),
    }
    with restored(target, source.database) as scratch:
        manifest["schema"] = _schema_of(scratch)
        manifest["gradebook_sha256"] = gradebook_digest(scratch, target / COURSE)
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def verify(snapshot: Path, database: str | None = None) -> dict[str, object]:
    """Check every file's hash, restore to a scratch place (a temporary folder, or a scratch database made
    on the PostgreSQL server at `database`) and compare the gradebook with the one recorded."""
    manifest = read_manifest(snapshot)
    if manifest["database"] == "postgresql" and not database:
        raise UsageError("a PostgreSQL snapshot is verified in a scratch database: --database URL names the "
                         "server to make it on (the user needs CREATEDB)")
    with restored(snapshot, database) as scratch:
        digest = gradebook_digest(scratch, snapshot / COURSE)
    if digest != manifest["gradebook_sha256"]:
        raise UsageError(f"{snapshot}: the restored gradebook differs from the one recorded at backup "
                         f"({digest[:12]} != {str(manifest['gradebook_sha256'])[:12]})")
    return manifest


def restore(snapshot: Path, state: Path, database: str | None = None, course: Path | None = None) -> dict[str, object]:
    """Restore the snapshot into an empty state folder (and an empty PostgreSQL database), and the course's
    files into `course` when given. Nothing existing is overwritten."""
    from grader.server.state import DATABASE, UPLOADS

    manifest = read_manifest(snapshot)
    if (manifest["database"] == "postgresql") != bool(database):
        raise UsageError("a PostgreSQL snapshot restores into --database URL, a SQLite one without it")
    for folder in (state, course):
        if folder is not None and folder.exists() and any(folder.iterdir()):
            raise UsageError(f"{folder} is not empty: restore into a new folder (nothing is overwritten)")
    if database:
        _require_empty_postgres(database)
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copytree(snapshot / HANDINS, state / UPLOADS)
    if database:
        _run([_postgres_program("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
              f"--dbname={database}", str(snapshot / POSTGRES_DUMP)], "pg_restore")
    else:
        shutil.copy2(snapshot / SQLITE_COPY, state / DATABASE)
    if course is not None:
        shutil.copytree(snapshot / COURSE, course)
    return manifest


def before_upgrade(source: Source, course_root: Path) -> Path | None:
    """A snapshot in the state's backups/ folder when the database's schema is older than this grader's
    (its migrations are about to run): an upgrade that goes wrong is undone by `restore`. None otherwise."""
    from grader.server.state import DATABASE, MIGRATIONS

    if source.database:
        connection = _connect(source.database)
        try:
            exists = connection.execute("SELECT to_regclass('grader_schema')").fetchone()[0]
            row = connection.execute("SELECT version FROM grader_schema").fetchone() if exists else None
        finally:
            connection.close()
        current = int(row[0]) if row else 0
    elif (source.state / DATABASE).is_file():
        connection = sqlite3.connect(f"file:{source.state / DATABASE}?mode=ro", uri=True)
        try:
            current = int(connection.execute("PRAGMA user_version").fetchone()[0])
        finally:
            connection.close()
    else:
        return None
    if not 0 < current < len(MIGRATIONS):
        return None  # a new database, one up to date, or one from a newer grader (refused when opened)
    target = source.state / "backups" / f"before-schema-{len(MIGRATIONS)}-{time.strftime('%Y%m%dT%H%M%S')}"
    backup(source, course_root, target)
    return target


def read_manifest(snapshot: Path) -> dict[str, object]:
    """The manifest, its format known, and every file it names present with the hash it recorded."""
    try:
        manifest = json.loads((snapshot / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"{snapshot}: not a snapshot ({MANIFEST}: {error})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise UsageError(f"{snapshot / MANIFEST}: not a snapshot's manifest")
    if manifest.get("format") != FORMAT:
        raise UsageError(f"{snapshot / MANIFEST}: snapshot format {manifest.get('format')!r}; this grader "
                         f"reads format {FORMAT} (a newer grader made it?)")
    found = _hashes(snapshot)
    for name, digest in manifest["files"].items():
        if found.get(name) != digest:
            raise UsageError(f"{snapshot}: {name} is {'changed' if name in found else 'missing'} since the backup")
    extra = sorted(set(found) - set(manifest["files"]))
    if extra:
        raise UsageError(f"{snapshot}: {extra[0]} was not in the backup")
    return manifest


@contextmanager
def restored(snapshot: Path, database: str | None) -> Iterator["Source"]:
    """The snapshot restored to a scratch place, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="grader-restore-") as folder:
        scratch_url = _scratch_database(database) if (snapshot / POSTGRES_DUMP).exists() else None
        try:
            restore_into = Path(folder) / "state"
            if scratch_url:
                restore_into.mkdir(mode=0o700)
                shutil.copytree(snapshot / HANDINS, restore_into / "uploads")
                _run([_postgres_program("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
                      f"--dbname={scratch_url}", str(snapshot / POSTGRES_DUMP)], "pg_restore")
            else:
                restore_into.mkdir(mode=0o700)
                shutil.copytree(snapshot / HANDINS, restore_into / "uploads")
                shutil.copy2(snapshot / SQLITE_COPY, restore_into / "state.sqlite")
            yield Source(restore_into, scratch_url)
        finally:
            if scratch_url:
                _drop_database(database or "", scratch_url)


def gradebook_digest(source: Source, course_root: Path) -> str:
    """SHA-256 of the server's gradebook (JSON, every rule applied) as the server would export it."""
    from grader.course import COURSE_FILE, Course
    from grader.server.queue import Exercises
    from grader.server.rules import load_rules
    from grader.server.state import State
    from grader.server.views import build_gradebook, gradebook_text

    course = Course.at(course_root)
    rules = load_rules(course.exercises_dir.parent / COURSE_FILE)
    state = State(source.state, source.database)
    try:
        book, applied = build_gradebook(state, Exercises(course), rules)
        text = gradebook_text(book, applied, "json", {})
    finally:
        state.close()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _schema_of(source: Source) -> int:
    from grader.server.state import State

    state = State(source.state, source.database)
    try:
        with state.transaction() as db:
            return int(db.version())
    finally:
        state.close()


def _sqlite_backup(live: Path, copy: Path) -> None:
    """SQLite's online backup: a consistent copy while the server writes (WAL included)."""
    source = sqlite3.connect(f"file:{live}?mode=ro", uri=True)
    target = sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


def _copy_handins(uploads: Path, target: Path) -> None:
    """Every stored hand-in (never one still arriving: those have no row and are not graded)."""
    from grader.server.state import INCOMING

    if not uploads.is_dir():  # a state whose server never stored a hand-in
        target.mkdir(mode=0o700)
        return
    shutil.copytree(uploads, target, ignore=lambda _, names: [n for n in names if n.startswith(INCOMING)])


def _copy_course(root: Path, target: Path) -> None:
    """The course as grading reads it: the course file, its exercises and references folders."""
    from grader.course import COURSE_FILE, Course

    course = Course.at(root)
    target.mkdir(mode=0o700)
    base = course.exercises_dir.parent
    if (base / COURSE_FILE).is_file():
        shutil.copy2(base / COURSE_FILE, target / COURSE_FILE)
    # Where the course file says its exercises are, else `exercises/` (where `Course.at` looks for them).
    has_file = (base / COURSE_FILE).is_file() and course.exercises_dir.is_relative_to(base)
    where = course.exercises_dir.relative_to(base) if has_file else Path("exercises")
    shutil.copytree(course.exercises_dir, target / where, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    if course.reference_root.is_dir():
        shutil.copytree(course.reference_root, target / course.reference_root.name,
                        ignore=shutil.ignore_patterns("__pycache__", ".*"))


def _hashes(folder: Path) -> dict[str, str]:
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != MANIFEST:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            found[path.relative_to(folder).as_posix()] = digest.hexdigest()
    return found


def _postgres_program(name: str) -> str:
    """PostgreSQL's client program: on PATH, else the newest of Debian's installed versions."""
    found = shutil.which(name) or next(iter(sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)), None)
    if not found:
        raise UsageError(f"{name} is needed for a PostgreSQL database (apt-get install postgresql-client)")
    return str(found)


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PGCONNECT_TIMEOUT": "10"})
    if done.returncode:
        raise UsageError(f"{what} failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")


def _connect(url: str):  # type: ignore[no-untyped-def]
    from grader.server.database import Postgres

    return Postgres(url).connection


def _require_empty_postgres(url: str) -> None:
    connection = _connect(url)
    try:
        tables = connection.execute("SELECT count(*) FROM information_schema.tables "
                                    "WHERE table_schema = 'public'").fetchone()[0]
    finally:
        connection.close()
    if tables:
        raise UsageError("the database at --database already has tables: restore into an empty database "
                         "(nothing is overwritten)")


def _scratch_database(url: str | None) -> str:
    if not url:
        raise UsageError("a PostgreSQL snapshot is restored to a scratch database: --database URL is needed")
    name = f"grader_scratch_{secrets.token_hex(6)}"
    connection = _connect(url)
    try:
        connection.execute(f'CREATE DATABASE "{name}"')
    except Exception as error:  # noqa: BLE001 - psycopg's errors, said plainly
        raise UsageError(f"cannot make a scratch database to restore into: {error}") from None
    finally:
        connection.close()
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _drop_database(url: str, scratch: str) -> None:
    connection = _connect(url)
    try:
        connection.execute(f'DROP DATABASE IF EXISTS "{urlsplit(scratch).path.lstrip("/")}" WITH (FORCE)')
    finally:
        connection.close()


def _version() -> str:
    from grader.version import grader_version

    return grader_version()
