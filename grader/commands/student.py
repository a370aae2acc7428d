"""What a student runs: list, show, start, hint, check."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING

from grader.exit_codes import ExitCode
from grader.outputs import REPORT_FORMATS, import_soon, output

if TYPE_CHECKING:  # the heavy modules are imported by the commands that use them: start-up stays short
    from rich.console import Console
    from rich.table import Table

    from grader.course import Course
    from grader.model import Exercise
    from grader.sandbox import Backend

def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    def command(name: str, help_text: str, run: object, exercise: bool = True) -> argparse.ArgumentParser:
        parser = subparsers.add_parser(name, help=help_text, description=help_text)
        if exercise:
            parser.add_argument("exercise", metavar="EXERCISE", help="exercise id, e.g. count-queens")
        parser.add_argument("--exercises", metavar="DIR", help="exercises folder (default: the course of the current folder or above, else $GRADER_EXERCISES, else the bundled one)")
        if exercise:
            parser.add_argument("--student", metavar="ID", help="whose variant of an exercise with params "
                                "(default: $GRADER_STUDENT; docs/variants.md)")
        parser.set_defaults(run=run)
        return parser

    command("list", "list the exercises", run_list, exercise=False)
    command("show", "show an exercise: statement, starter code, visible tests", run_show)
    start = command("start", "write the starter file of an exercise", run_start)
    start.add_argument("path", metavar="PATH", nargs="?", help="where to write it (default: <id>.py)")
    start.add_argument("--force", action="store_true", help="overwrite an existing file")
    hint = command("hint", "show the next hint of an exercise", run_hint)
    hint.add_argument("--all", action="store_true", help="show every hint")
    hint.add_argument("--reset", action="store_true", help="start the hints again from the first")
    check = command("check", "grade a submission and print the report", run_check)
    check.add_argument("submission", metavar="SUBMISSION", help="the file to grade")
    # A metavar: the choices, now with each platform's, would not wrap in the usage line. The choices are
    # read from the registry when argparse asks (a check of a built-in format looks for no package's).
    check.add_argument("--format", choices=REPORT_FORMATS, default="terminal", metavar="FORMAT",
                       help="report format: %(choices)s (default: terminal)")
    check.add_argument("--all", action="store_true",
                       help="run every test, even after a small test failed or a test ran out of time")
    check.add_argument("--watch", action="store_true",
                       help="grade again each time the file is saved (Ctrl-C stops)")
    login = subparsers.add_parser("login", help="store the course server and your token for `grader submit`",
                                  description="Store the course server's address and your token, readable by "
                                              "you alone, so that `grader submit EXERCISE FILE` needs neither.")
    login.add_argument("--server", metavar="URL", required=True, help="the server, e.g. https://grader.example.org")
    login.add_argument("--token", metavar="TOKEN", help="your token (default: $GRADER_TOKEN, else asked for, "
                                                        "unechoed)")
    login.add_argument("--insecure", action="store_true",
                       help="allow a plain http:// server on another host (your token crosses the network "
                            "unencrypted); kept for `grader submit` to that server")
    login.set_defaults(run=run_login)


def run_login(args: argparse.Namespace) -> ExitCode:
    import getpass
    import os

    from grader.errors import UsageError
    from grader.server.client import TOKEN_VARIABLE, save_login
    from grader.server.http_client import checked_server
    from grader.text import escape_controls

    server = checked_server(args.server, args.insecure)  # before a token is asked for: refused, it is not
    token = args.token or os.environ.get(TOKEN_VARIABLE)
    if not token and sys.stdin.isatty():
        token = getpass.getpass("token: ")
    if not token or not token.strip():
        raise UsageError(f"a token is needed: --token TOKEN, ${TOKEN_VARIABLE}, or typed when asked")
    path = save_login(server, token, args.insecure)
    if args.insecure and server.startswith("http://"):
        print(f"warning: {escape_controls(server)} is plain http: your token crosses the network unencrypted "
              f"with each submission", file=sys.stderr)
    print(f"stored the server {escape_controls(server)} and your token in {path} (readable by you alone); "
          f"now: grader submit EXERCISE FILE")
    return ExitCode.OK


def _course(args: argparse.Namespace, *, say: bool = True) -> Course:
    """The course the command works on; on stderr, in one short line, which one when none was in this folder
    or above (`say` False: the output names it anyway). An unknown exercise's error says it in full."""
    from grader.course import Course

    course = Course.at(args.exercises)
    if say and course.note:
        print(course.note, file=sys.stderr)
    return course


def _load(args: argparse.Namespace, course: Course | None = None) -> Exercise:
    """The exercise the command names, as the student's variant when it has params (grader.variants)."""
    import os

    exercise = (course or _course(args)).load(args.exercise)
    if exercise.params is None:
        return exercise
    from grader.variants import STUDENT_VARIABLE, for_student

    student = args.student if args.student is not None else os.environ.get(STUDENT_VARIABLE, "")
    variant = for_student(exercise, student)
    print(f"{exercise.id}: variant {variant.variant} of student {student!r}", file=sys.stderr)
    return variant


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, emoji=False)


def run_list(args: argparse.Namespace) -> ExitCode:
    from rich.table import Table
    from rich.text import Text

    course = _course(args, say=False)  # the table's title names the folder
    table = Table(title=f"Exercises in {course.exercises_dir}", header_style="bold")
    for column in ("id", "title", "kind", "tests (hidden)"):
        table.add_column(column)
    exercises, problems = course.load_valid()
    for exercise in exercises:
        hidden = sum(t.hidden for t in exercise.tests) + exercise.hidden_tests
        table.add_row(exercise.id, Text(exercise.title), str(exercise.kind), f"{len(exercise.tests)} ({hidden})")
    _console().print(table)
    return report_broken_specs(problems)


def report_broken_specs(problems: list[str]) -> int:
    """Each problem of the specs that did not load, on stderr; the exit status says a spec is broken."""
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        count = len(problems)
        print(f"{count} problem{'s' if count != 1 else ''} in the exercise specs: the other exercises work",
              file=sys.stderr)
    return ExitCode.SPEC_ERROR if problems else ExitCode.OK


def run_show(args: argparse.Namespace) -> ExitCode:
    from rich.markdown import Markdown
    from rich.syntax import Syntax
    from rich.text import Text

    from grader.kinds import kind_of

    exercise = _load(args)
    console = _console()
    console.rule(Text(f"{exercise.id}: {exercise.title}", style="bold"))
    console.print(Markdown(exercise.statement))
    kind = kind_of(exercise.kind)
    if kind.shown_code(exercise):
        console.print(Text("The code:", style="bold"))
        console.print(Syntax(kind.shown_code(exercise), "python", line_numbers=True))
    if exercise.starter:
        console.print(Text(f"Starter code (grader start {exercise.id}):", style="bold"))
        console.print(Syntax(exercise.starter, kind.starter_lexer))
    if kind.lists_tests:
        console.print(_visible_tests(exercise))
    cpu = sorted({t.limits.cpu for t in exercise.tests})  # per test, from the course's calibration
    cpu_text = f"{cpu[0]:g} s" if len(cpu) == 1 else f"{cpu[0]:g} to {cpu[-1]:g} s"
    sources = sorted({t.limits.cpu_origin for t in exercise.tests})
    limits = exercise.limits
    console.print(Text(f"Limits: {cpu_text} of CPU per test ({'; '.join(sources)}), {limits.memory} MiB, "
                       f"output {limits.output} KiB. {_hidden_count(exercise)}.", style="dim"))
    return ExitCode.OK


def _hidden_count(exercise: Exercise) -> str:
    """'2 hidden tests run too': a student bundle's hidden tests are left out of it, counted in its spec."""
    from grader.words import count

    hidden = sum(t.hidden for t in exercise.tests) + exercise.hidden_tests
    return f"{count(hidden, 'hidden test')} run too" if hidden else "No hidden tests"


def _visible_tests(exercise: Exercise) -> Table:
    from rich.table import Table
    from rich.text import Text

    from grader.expected import ExpectationError, expected_values
    from grader.forms import form_of
    from grader.model import MISSING
    from grader.text import escape_controls

    try:
        expected = expected_values(exercise)
    except ExpectationError:
        expected = {}
    table = Table(title="Visible tests", header_style="bold", show_lines=True)
    table.add_column("test")
    table.add_column("input")
    table.add_column("expected")
    for test in exercise.tests:
        if test.hidden:
            continue
        form = form_of(test)
        table.add_row(*(Text(escape_controls(text)) for text in (
            test.name, form.shown_input(test), form.shown_expected(test, expected.get(test.name, MISSING)))))
    return table


def run_start(args: argparse.Namespace) -> ExitCode:
    from grader.errors import UsageError
    from grader.kinds import kind_of

    exercise = _load(args)
    suffix = kind_of(exercise.kind).suffix
    path = Path(args.path or f"{exercise.id}{suffix}")
    if path.exists() and not args.force:
        raise UsageError(f"{path} exists; pass --force to overwrite it")
    if not path.parent.is_dir():
        raise UsageError(f"no folder {path.parent}")
    path.write_text(exercise.starter, encoding="utf-8")
    console = _console()
    console.print(f"Wrote {path}. When it is ready, run:", soft_wrap=True)
    # On a line of its own and never wrapped: a command broken in the middle cannot be copied.
    console.print(f"  grader check {exercise.id} {path}", soft_wrap=True)
    return ExitCode.OK


def run_hint(args: argparse.Namespace) -> ExitCode:
    from rich.markdown import Markdown
    from rich.text import Text

    from grader.cache import cache_dir, keep

    exercise = _load(args)
    if not exercise.hints:
        _console().print("This exercise has no hints.")
        return ExitCode.OK
    state_file = cache_dir() / "hints.json"
    try:
        shown = json.loads(state_file.read_text())
    except (OSError, ValueError):
        shown = {}
    count = 0 if args.reset else int(shown.get(exercise.id, 0))
    count = len(exercise.hints) if args.all else min(count + 1, len(exercise.hints))
    shown[exercise.id] = count
    keep(state_file, json.dumps(shown).encode())
    console = _console()
    for number in range(count):
        console.print(Text(f"Hint {number + 1} of {len(exercise.hints)}", style="bold"))
        console.print(Markdown(exercise.hints[number]))
    if count < len(exercise.hints):
        console.print(Text(f"Run `grader hint {exercise.id}` again for the next one.", style="dim"))
    return ExitCode.OK


def run_check(args: argparse.Namespace) -> ExitCode:
    from grader.errors import UsageError

    course = _course(args)
    exercise = _load(args, course)
    submission = Path(args.submission)
    if not (submission.is_file() or submission.is_dir()):
        raise UsageError(f"no file {submission}")
    if args.watch:
        return _watch(args, course, exercise, submission)
    return _check_once(args, course, exercise, submission, meanwhile=lambda: import_soon(args.format))


def _check_once(args: argparse.Namespace, course: Course, exercise: Exercise, submission: Path,
                meanwhile: Callable[[], object] | None = None, backend: Backend | None = None) -> ExitCode:
    from grader.grading import GradingRequest, Pace, grade
    from grader.kinds import kind_of
    from grader.model import Verdict
    from grader.outputs import OUTPUTS

    counted = not kind_of(exercise.kind).runs_code  # a prediction's answer is shown after a few wrong checks
    wrong_before = _wrong_checks(exercise.id) if counted else 0
    # A student reading the report stops early: after a timeout an endless loop answers in about one
    # limit, not one per test. A format that is a grade (a platform's) runs every test, as a batch does.
    every_test = args.all or OUTPUTS[args.format].grades
    request = GradingRequest(Pace.EVERY_TEST if every_test else Pace.FAIL_FAST,
                             visible_only=course.is_student_bundle,
                             private_paths=course.private_paths(submission.resolve().parent),
                             attempt=wrong_before + 1 if counted else None)
    if exercise.search is not None:  # the inputs its search found on this file before are tests now
        from grader.search.found import remember, with_found

        exercise = with_found(exercise, submission)
    # The report's modules (rich) are imported on a thread while the sandbox starts and runs the tests.
    report = grade(exercise, submission, request, meanwhile=meanwhile, backend=backend)
    if exercise.search is not None:
        remember(exercise, submission, report)
    if counted and report.verdict == Verdict.WRONG_ANSWER:
        _wrong_checks(exercise.id, wrong_before + 1)
    output(args.format).render(report, sys.stdout)
    return ExitCode.OK if report.verdict == Verdict.PASSED else ExitCode.TESTS_FAILED


def _wrong_checks(exercise_id: str, record: int | None = None) -> int:
    """How many wrong checks of the exercise this user made, kept beside the hints' state; `record`
    stores a new count."""
    from grader.cache import cache_dir, keep

    state_file = cache_dir() / "attempts.json"
    try:
        state = json.loads(state_file.read_text())
    except (OSError, ValueError):
        state = {}
    if not isinstance(state, dict):
        state = {}
    if record is not None:
        state[exercise_id] = record
        keep(state_file, json.dumps(state).encode())
    count = state.get(exercise_id, 0)
    return count if isinstance(count, int) else 0


def _watch(args: argparse.Namespace, course: Course, exercise: Exercise, submission: Path) -> ExitCode:
    """Grade, then again after each save, in this process: its modules stay imported and the next sandbox
    is started while it waits for the save, so a re-check costs little more than the student's own code."""
    from watchfiles import watch

    from grader.sandbox import default_backend
    from grader.sandbox.warm import WarmBackend

    backend = WarmBackend(default_backend())
    console = _console()
    target = submission.resolve()
    # An editor saves by writing, or by writing a copy and renaming it over: any change to the path
    # counts. One watcher for the whole session, watching from before the first check: a save made
    # while a check runs is not lost. The shortest step: a save is seen a step after its last event (one
    # save's events come within a millisecond of each other), and a step more costs the idle watcher
    # little. The timeout only wakes the loop (an empty set), here once to start the watcher.
    saves = watch(target.parent, watch_filter=lambda _, path: Path(path) == target, debounce=400, step=1,
                  rust_timeout=50, yield_on_timeout=True, recursive=False)  # never a home folder's whole tree
    status = ExitCode.OK
    try:
        next(saves)
        while True:
            console.clear()  # a no-op unless stdout is a terminal
            status = _check_once(args, course, exercise, submission, backend=backend)
            print(f"Watching {submission}: save it to check again; Ctrl-C stops.", flush=True)
            backend.start_ahead()
            while not next(saves) or not target.is_file():
                pass  # deleted, not yet written again
    except KeyboardInterrupt:
        return status
    finally:
        backend.close()
    return status
