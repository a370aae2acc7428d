"""What a teaching assistant runs: `grader batch SUBMISSIONS_DIR`, a whole class into gradebooks."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from grader.errors import UsageError
from grader.commands.arguments import whole_number
from grader.exit_codes import ExitCode
from grader.outputs import LMS_GRADEBOOKS, batch_outputs
from grader.words import count

# grader.batch.roster.COLUMNS, written out: `grader --help` builds this parser, and importing the batch's
# modules for it costs start-up time (a test keeps them equal).
ROSTER_COLUMNS = ("folder", "name", "id", "sis_id", "login", "email", "section", "participant")

if TYPE_CHECKING:  # the batch machinery is imported when a batch runs: every other command starts faster
    from rich.console import Console

    from grader.gradebook import Gradebook
    from grader.batch.roster import Roster
    from grader.batch.session import Batch

EXIT_CODES = """after a batch:
  grader batch show STUDENT [EXERCISE] [--out DIR]
       what the batch stored for one student: each test's verdict, and for hidden tests the expected
       value beside the output, and the traceback (for staff)

exit status:
  0    the batch completed (whatever the students scored)
  1    the batch completed, but some submissions got grader_error: the grader's or a spec's fault
  2    usage error (bad option, missing folder, unknown exercise)
  3    an exercise spec is broken, or its reference cannot produce the expected values
  4    internal error
  130  interrupted (Ctrl-C or SIGTERM): run the same command again to finish; nothing graded is lost"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from grader.batch.layouts import LAYOUTS  # light (no grading); only `batch` and `--help` build this
    parser = subparsers.add_parser(
        "batch", help="grade a whole class: one folder per student", epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade every student folder of SUBMISSIONS_DIR, in parallel, into a SQLite database "
                    "and gradebooks. Stopped at any moment, the same command resumes where it stopped.")
    parser.add_argument("submissions", metavar="SUBMISSIONS_DIR", type=Path,
                        help="one sub-folder per student, or a Canvas, Moodle, Gradescope or GitHub Classroom "
                             "download (a folder, or Canvas's zip)")
    parser.add_argument("--exercises", metavar="DIR", type=Path,
                        help="exercises folder (default: the course of the current folder or above, else "
                             "$GRADER_EXERCISES, else the bundled one)")
    parser.add_argument("--out", metavar="DIR", type=Path, default=Path("grader-out"),
                        help="output folder: database, gradebooks, reports (default: grader-out)")
    parser.add_argument("--workers", metavar="N", type=whole_number(1), default=None,
                        help=f"local worker processes (default: one per core, {len(os.sched_getaffinity(0))} here)")
    parser.add_argument("--cluster", metavar="ADDRESS", type=_address,
                        help="grade on a Dask cluster: tcp://HOST:PORT, or local:N to start N local workers")
    parser.add_argument("--match", metavar="TEMPLATE", action="append", default=None,
                        help="file-name rule, repeatable: {id} is the exercise id (case, - _ . and spaces "
                             "ignored), {ext} py (txt for predict), * and ? wildcards (default: {id}.{ext})")
    parser.add_argument("--only", metavar="ID", action="append", default=None,
                        help="grade only this exercise (repeatable; default: every exercise someone handed in)")
    parser.add_argument("--outputs", metavar="LIST", type=_outputs, default=batch_outputs(defaults_only=True),
                        help=f"comma-separated, from {','.join(batch_outputs())} "
                             f"(default: {','.join(batch_outputs(defaults_only=True))})")
    parser.add_argument("--layout", choices=("auto", *LAYOUTS), default="auto",
                        help="how SUBMISSIONS_DIR is laid out (default: auto, by the marks each platform leaves)")
    parser.add_argument("--roster", metavar="CSV", type=Path,
                        help=f"who is who: a CSV with a header, `folder` and any of {', '.join(ROSTER_COLUMNS[1:])}")
    parser.add_argument("--gradebook", metavar="KIND", choices=LMS_GRADEBOOKS, action="append", default=None,
                        help="also write a gradebook an LMS imports, repeatable: %(choices)s (gradebook-KIND.csv)")
    parser.add_argument("--assignment", metavar="ID=NAME", action="append", default=None, type=_assignment,
                        help="the LMS assignment an exercise's column is for (repeatable; default: its title)")
    parser.add_argument("--all", action="store_true",
                        help="accepted for old scripts: a batch is a grade, and runs every test anyway")
    parser.add_argument("--regrade", action="store_true", help="grade everything again, ignoring stored results")
    parser.add_argument("--per-test", action="store_true",
                        help="end with the pass rate of every test too, not only one row per exercise")
    parser.set_defaults(run=run_batch, parser=parser)
    # `grader batch show ...` is a command of its own under `batch`, beside `grader batch SUBMISSIONS_DIR`
    # (argparse cannot mix a sub-command with a positional; a class folder named show is ./show).
    parser.__class__ = _BatchParser
    parser.show_parser = _show_parser(parser.prog)  # type: ignore[attr-defined]


class _BatchParser(argparse.ArgumentParser):
    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def, override]
        if args and args[0] == "show":
            return self.show_parser.parse_known_args(args[1:], namespace)  # type: ignore[attr-defined]
        return super().parse_known_args(args, namespace)


def _show_parser(batch_prog: str) -> argparse.ArgumentParser:
    show = argparse.ArgumentParser(
        prog=f"{batch_prog} show", description="Print what a batch stored for one student, for staff: each "
        "test's verdict and CPU limit, and for hidden tests the expected value beside the output, and the traceback.")
    show.add_argument("student", metavar="STUDENT", help="the student's folder name")
    show.add_argument("exercise", metavar="EXERCISE", nargs="?", help="one exercise (default: every one)")
    show.add_argument("--out", metavar="DIR", type=Path, default=Path("grader-out"),
                      help="the batch's output folder (default: grader-out)")
    show.set_defaults(run=run_show, parser=show)
    return show


def run_show(args: argparse.Namespace) -> ExitCode:
    from rich.console import Console

    from grader.batch.session import DATABASE
    from grader.batch.show import gather, render
    from grader.errors import UsageError

    try:
        shown = gather(args.out / DATABASE, args.student, args.exercise)
    except UsageError as error:
        args.parser.error(str(error))  # the usage of `batch show`, exit status 2
    render(shown, Console(highlight=False, emoji=False, soft_wrap=False))
    return ExitCode.OK


def _address(text: str) -> str:
    from grader.workers.cluster import check_address

    try:
        return check_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither tcp://HOST:PORT nor local:N (N >= 1)") from None


def _outputs(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in batch_outputs()]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown output {', '.join(unknown) or '(none)'}; "
                                         f"choose from {', '.join(batch_outputs())}")
    return names


def _assignment(text: str) -> tuple[str, str]:
    exercise_id, equals, name = text.partition("=")
    if not equals or not exercise_id.strip() or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not ID=NAME (e.g. count-queens='HW3: Count the queens')")
    return exercise_id.strip(), name.strip()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the batch as Ctrl-C does: cleanly, resumably


def run_batch(args: argparse.Namespace) -> ExitCode:
    from rich.console import Console
    from rich.text import Text

    from grader.batch.discover import NameRule
    from grader.workers.pool import default_workers
    from grader.batch.roster import load_roster
    from grader.batch.session import Batch, Options
    from grader.batch.summary import summary
    from grader.model import Verdict
    from grader.outputs import output

    if args.cluster and args.workers:
        args.parser.error("--workers is for local runs; a --cluster has its own workers")
    roster = load_roster(args.roster) if args.roster else None  # a broken roster stops it before grading
    options = Options(
        submissions=args.submissions, exercises=args.exercises, out=args.out,
        workers=args.workers or default_workers(), cluster=args.cluster,
        rule=NameRule(tuple(args.match)) if args.match else NameRule(), layout=args.layout,
        only=tuple(args.only or ()),
        outputs=args.outputs, regrade=args.regrade)
    # soft_wrap: a log line stays one line (and greppable) when the output is not a terminal.
    out = Console(highlight=False, emoji=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    batch = Batch(options)
    try:
        batch.prepare()
        _describe_class(batch, err)
        try:
            batch.grade(err)
        except KeyboardInterrupt:
            tally = batch.tally
            err.print(f"interrupted: {tally.reused + tally.done} of {tally.submissions} submissions are graded "
                      f"and stored in {options.out}; run the same command again to grade the rest")
            return ExitCode.INTERRUPTED
        book = batch.gradebook()
        written = batch.write_outputs(book)
        known = _write_class_list(batch, roster, dict(args.assignment or ()), book, args.gradebook or [])
        for kind in args.gradebook or ():
            written += output(kind).write(book, options.out)
    finally:
        batch.close()
        signal.signal(signal.SIGTERM, previous)
    out.print(summary(book, per_test=args.per_test), soft_wrap=False)  # fitted to the terminal's width
    tally = batch.tally
    out.print(Text(
        f"{tally.submissions} submissions: {tally.reused} already in the database, {tally.done} graded now "
        f"({tally.gradings} run in the sandbox{f' on {tally.runner}' if tally.runner else ''}) "
        f"in {tally.wall_seconds:.1f} s", style="bold"), soft_wrap=False)
    _describe_roster(known, err)
    for path in written:
        out.print(f"wrote {path}")
    errors = sum(1 for cell in book.cells.values() if cell.verdict == Verdict.GRADER_ERROR)
    if errors:
        err.print(f"{errors} submissions got grader_error (the grader's or a spec's fault, not the student's): "
                  f"see {options.out / 'html' / 'index.html'} or the database")
    if batch.spec_problems:
        from grader.commands.student import report_broken_specs

        return report_broken_specs(batch.spec_problems)
    return ExitCode.TESTS_FAILED if errors else ExitCode.OK


def _describe_class(batch: Batch, err: Console) -> None:
    from rich.text import Text

    from grader.text import escape_controls

    folder, plan = batch.folder, batch.plan
    assert folder is not None and plan is not None
    layout = "" if folder.layout == "folders" else f" ({folder.layout} download)"
    # Wrapped at word boundaries on a terminal (the progress line follows it); one line in a log.
    err.print(Text(f"{count(len(folder.students), 'student')} x {count(len(plan.exercises), 'exercise')} "
                   f"({', '.join(e.id for e in plan.exercises)}) from {escape_controls(str(folder.root))}{layout}"),
              soft_wrap=not err.is_terminal)
    for change in batch.limit_changes:
        err.print(Text(change, style="yellow"))
    for label, items in (("not graded (no exercise matches the name; see --match)", folder.stray),
                         ("not graded (another file of the folder was chosen)", folder.duplicates),
                         ("not read", folder.not_walked)):
        if items:
            shown = ", ".join(items[:8]) + (f" and {len(items) - 8} more" if len(items) > 8 else "")
            err.print(Text(f"{len(items)} file{'s' if len(items) != 1 else ''} {label}: {shown}", style="yellow"))


def _write_class_list(batch: Batch, roster: Roster | None, assignments: dict[str, str], book: Gradebook,
                      gradebooks: list[str]) -> dict[str, Any]:
    """Who is who (the roster joined to the hand-ins), and late hand-ins; class.json, with a roster or an
    LMS gradebook, for the gradebooks to read."""
    import json

    from grader.batch.roster import class_list
    from grader.outputs.files import write_atomic
    from grader.outputs.lms_gradebook import CLASS_FILE

    folder = batch.folder
    assert folder is not None
    graded = {e.id for e in book.exercises}
    unknown_ids = sorted(set(assignments) - graded)
    if unknown_ids:
        raise UsageError(f"--assignment names {', '.join(unknown_ids)}, which this batch does not grade "
                         f"({', '.join(sorted(graded))})")
    known = class_list(folder.students, folder.ids, {s: folder.late(s) for s in folder.students}, roster,
                       assignments, folder.layout)
    if roster is not None or gradebooks:  # outputs are written on request only
        write_atomic(batch.options.out / CLASS_FILE, json.dumps(known, indent=1, ensure_ascii=True) + "\n")
    return known


def _describe_roster(known: dict[str, Any], err: Console) -> None:
    from rich.text import Text

    from grader.text import escape_controls

    unknown = [str(p["student"]) for p in known["unknown"]]
    unmatched = [str(p["folder"] or p["name"] or p["id"]) for p in known["roster"] if p["status"] == "no hand-in"]
    late = [f"{s} ({', '.join(e)})" for s, e in known["late"].items()]
    for label, items in (("handed in but on no roster line (not in the LMS gradebooks)", unknown),
                         ("on the roster but no hand-in found (left blank in the LMS gradebooks)", unmatched),
                         ("handed in late", late)):
        if items:
            err.print(Text(f"{len(items)} student{'s' if len(items) != 1 else ''} {label}: "
                           f"{escape_controls(', '.join(items))}", style="yellow"))
