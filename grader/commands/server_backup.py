"""`grader serve backup|restore|verify`: a course server's snapshot made, restored and proven."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from grader.exit_codes import ExitCode


def add_actions(actions: argparse._SubParsersAction, state_option: Callable[..., None]) -> None:  # type: ignore[type-arg]
    made = actions.add_parser("backup", help="write a consistent snapshot: database, hand-ins, course, manifest",
                              description="Snapshot the server's database (SQLite's online backup or pg_dump), its "
                                          "stored hand-ins and the course's files into a new folder, with a "
                                          "manifest of hashes and the gradebook's digest. Safe while serving.")
    made.add_argument("target", metavar="SNAPSHOT", type=Path, help="a new (or empty) folder for the snapshot")
    made.add_argument("--exercises", metavar="DIR", help="the course (default: the course of the current folder)")
    state_option(made)
    made.set_defaults(run=run_backup)
    back = actions.add_parser("restore", help="restore a snapshot into an empty state folder (and database)",
                              description="Check the snapshot's hashes, then restore it into an empty state "
                                          "folder (and an empty PostgreSQL database for a PostgreSQL snapshot); "
                                          "--course DIR also restores the course's files. Nothing is overwritten.")
    back.add_argument("snapshot", metavar="SNAPSHOT", type=Path, help="a folder `grader serve backup` wrote")
    back.add_argument("--course", metavar="DIR", type=Path, help="restore the course's files into this new folder")
    state_option(back)
    back.set_defaults(run=run_restore)
    check = actions.add_parser("verify", help="prove a snapshot restores to the gradebook it recorded",
                               description="Check every file's hash, restore the snapshot to a scratch place (a "
                                           "temporary folder; for PostgreSQL a scratch database made and dropped on "
                                           "the server --database names) and compare its gradebook with the "
                                           "manifest's. Exit status 0 when it does, 2 when it does not.")
    check.add_argument("snapshot", metavar="SNAPSHOT", type=Path, help="a folder `grader serve backup` wrote")
    check.add_argument("--database", metavar="URL", default=os.environ.get("GRADER_DATABASE") or None,
                       help="a PostgreSQL server to make the scratch database on (default: $GRADER_DATABASE, as "
                            "the other actions: a deployment's containers set it)")
    check.set_defaults(run=run_verify)


def run_backup(args: argparse.Namespace) -> ExitCode:
    from grader.course import Course
    from grader.server.backup import Source, backup

    course = Course.at(args.exercises)
    manifest = backup(Source(args.state, args.database), course.exercises_dir, args.target)
    print(f"snapshot in {args.target}: {len(manifest['files'])} files, schema {manifest['schema']}, "  # type: ignore[arg-type]
          f"gradebook {str(manifest['gradebook_sha256'])[:12]}")
    return ExitCode.OK


def run_restore(args: argparse.Namespace) -> ExitCode:
    from grader.server.backup import restore

    manifest = restore(args.snapshot, args.state, args.database, args.course)
    print(f"restored the snapshot of {manifest['made_at']} into {args.state}"
          + (f" and the course into {args.course}" if args.course else ""))
    return ExitCode.OK


def run_verify(args: argparse.Namespace) -> ExitCode:
    from grader.server.backup import verify

    manifest = verify(args.snapshot, args.database)
    print(f"verified: every file as recorded; the restored gradebook is the one of {manifest['made_at']} "
          f"({str(manifest['gradebook_sha256'])[:12]})")
    return ExitCode.OK
