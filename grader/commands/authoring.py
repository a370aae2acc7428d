"""What an instructor runs: validate, calibrate, import, export, new."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from grader.exit_codes import ExitCode
from grader.kinds import KINDS, SCAFFOLD_FORMS
from grader.words import count

MUTANTS_MOST = 40  # grader.mutants.run.MOST, without importing it at every start
MUTANT_FORMATS = ("text", "json", "markdown")

if TYPE_CHECKING:  # the heavy modules are imported by the commands that use them: start-up stays short
    from rich.console import Console

    from grader.course import Course
    from grader.model import Exercise
    from grader.validation import ExerciseValidation




def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    def command(name: str, help_text: str, run: object) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help_text, description=help_text)
        parser.add_argument("--exercises", metavar="DIR", help="exercises folder (default: the course of the current folder or above, else $GRADER_EXERCISES, else the bundled one)")
        parser.set_defaults(run=run)
        return parser

    validate = command("validate", "prove exercises with their references: verdicts, expectations, checkers, "
                                   "time limits", run_validate)
    validate.add_argument("ids", metavar="ID", nargs="*", help="exercise ids (default: every exercise)")
    validate.add_argument("--recalibrate", action="store_true",
                          help="measure the time limits again even if this machine has them cached")
    validate.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), metavar="N",
                          help="validate N exercises at a time (default: one per CPU; time limits are still "
                               "measured one at a time); with --mutants, N grading workers")
    validate.add_argument("--mutants", action="store_true",
                          help="also grade mutants of the accepted references (the mistakes students make) and "
                               "report which tests kill them; the spec's mutants.kill_at_least is enforced")
    validate.add_argument("--most", type=int, default=None, metavar="N",
                          help=f"--mutants: grade at most N mutants per exercise, taken in turn from every rule "
                               f"and reference (default {MUTANTS_MOST})")
    validate.add_argument("--format", choices=MUTANT_FORMATS, default="text",
                          help="--mutants: how the mutants' report is written to standard output (json: "
                               "grader/schemas/mutants.schema.json; markdown: the table of docs/validate.md); "
                               "the validation's own report then goes to standard error")
    validate.add_argument("--html", metavar="DIR", type=Path, default=None,
                          help="--mutants: also write DIR/html/mutants.html (a batch's --out folder keeps it "
                               "beside the class's pages)")
    validate.add_argument("--variants", type=int, default=0, metavar="N",
                          help="prove an exercise with params on N variants: accepted references pass every "
                               "one, the others fail every one (default: 3; docs/variants.md)")
    validate.set_defaults(parser=validate)
    calibrate_parser = command("calibrate", "measure the CPU time limits on this machine from the accepted "
                                            "references", run_calibrate)
    calibrate_parser.add_argument("ids", metavar="ID", nargs="*", help="exercise ids (default: every exercise)")
    calibrate_parser.add_argument("--force", action="store_true", help="measure again even if cached")
    calibrate_parser.add_argument("--out", metavar="DIR", type=Path, default=None,
                                  help="a grader batch output folder: say which of its stored results the "
                                       "new limits make stale")
    importer = command("import", "turn a lesson (JSON) into exercises and their accepted references", run_import)
    importer.add_argument("lesson", metavar="LESSON.json", help="the lesson file")
    importer.add_argument("--force", action="store_true", help="overwrite exercises that exist")
    export = command("export", "write a bundle: for students (statements, starter code, visible tests, hints), "
                               "Gradescope's autograder zip, PrairieLearn's grader image or a GitHub Classroom "
                               "template", run_export)
    # One of them, checked in run_export: the CLI's stand-in parsers have no argument groups.
    export.add_argument("--student", metavar="DIR", help="the folder to write the student bundle to")
    export.add_argument("--gradescope", metavar="ZIP", help="the autograder zip to write (setup.sh, "
                                                            "run_autograder, exercises, references, the grader)")
    export.add_argument("--prairielearn", metavar="DIR", help="the folder to write PrairieLearn's external "
                                                              "grader image to (a Docker build context)")
    export.add_argument("--github-classroom", metavar="DIR", help="the folder to write a GitHub Classroom "
                                                                  "template repository to")
    export.add_argument("--as-student", metavar="ID", default=None,
                        help="with --student: the bundle of this student, exercises with params as their variant")
    export.add_argument("ids", metavar="ID", nargs="*", help="exercise ids (default: every exercise)")
    export.add_argument("--match", metavar="TEMPLATE", action="append", default=None,
                        help="--gradescope: file-name rule for submissions, as `grader batch --match`")
    export.add_argument("--force", action="store_true", help="write into a folder that is not empty, or over "
                                                             "an existing zip")
    export.set_defaults(parser=export)
    new = command("new", "scaffold an exercise and its reference folders", run_new)
    new.add_argument("id", metavar="ID", help="the new exercise's id, e.g. count-rooks")
    new.add_argument("--kind", choices=list(KINDS), default="function", help="what students hand in")
    new.add_argument("--form", choices=SCAFFOLD_FORMS, metavar="FORM", default="plain",
                     help="the tests' shape, one of %(choices)s: plain calls or stdin; class (function kind): a "
                          "class tested by sequences of steps; files (program kind): arguments, input and output "
                          "files")


def _console(stream: object = None) -> Console:
    from rich.console import Console

    # Tables of references and timings need room: 120 columns in logs and pipes, the terminal's width otherwise.
    out = stream or sys.stdout
    return Console(highlight=False, emoji=False, width=None if out.isatty() else 120, file=out)  # type: ignore[attr-defined]


def _selected(course: Course, ids: list[str]) -> list[str]:
    from grader.errors import UsageError

    chosen = ids or course.ids()
    if not chosen:
        raise UsageError(f"no exercises in {course.exercises_dir}")
    for exercise_id in chosen:
        course.path_of(exercise_id)  # an unknown id is a usage error, with a suggestion
    return chosen


def _build_environment(course: Course, console: Console) -> None:
    """The course's environment, built first (visibly) when it is not: its references import from it."""
    from rich.text import Text

    from grader.environment import build, environment_of_course

    environment = environment_of_course(course.exercises_dir)
    if environment is not None:
        if not environment.built:
            build(environment, progress=lambda line: console.print(Text(line, style="dim")))
        console.print(Text(f"course {environment.name}", style="dim"))


def run_validate(args: argparse.Namespace) -> ExitCode:
    from rich.text import Text

    from grader.calibration import machine, python_version
    from grader.course import Course
    from grader.errors import UsageError
    from grader.server.exams_spec import check_exams
    from grader.validation.render import render_summary, render_validation

    if not args.mutants and (args.most is not None or args.format != "text" or args.html is not None):
        args.parser.error("--most, --format and --html are for --mutants")
    if args.most is not None and args.most < 1:
        args.parser.error("--most must be at least 1")
    course = Course.at(args.exercises)
    ids = _selected(course, args.ids)
    exercises = course.load_all(ids, as_written=True)
    check_exams(course.exercises_dir)  # the course's exams/, read as `grader serve` reads them
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.variants < 0 or args.variants > 10_000:
        args.parser.error("--variants must be from 1 to 10000")
    # A report on standard output for a program (json) or a page (markdown): the validation's text goes aside.
    console = _console(sys.stderr if args.format != "text" else None)
    _build_environment(course, console)
    console.print(Text(f"Validating {len(ids)} exercise{'s' if len(ids) != 1 else ''} in {course.exercises_dir}\n"
                       f"machine: {machine()}\nsandbox interpreter: {python_version()}", style="dim"))
    started = time.monotonic()
    validations = []
    for validation in _validations(course, exercises, args.recalibrate, args.jobs, args.variants):
        render_validation(validation, console)
        validations.append(validation)
    render_summary(validations, time.monotonic() - started, console)
    ok = all(v.ok for v in validations)
    if args.mutants:
        ok = _run_mutants(course, validations, args, console) and ok
    return ExitCode.OK if ok else ExitCode.TESTS_FAILED


def _run_mutants(course: Course, validations: list[ExerciseValidation], args: argparse.Namespace,
                 console: Console) -> bool:
    """Grade the mutants of the exercises that validated (their accepted references pass, their limits are
    measured); report them in the chosen format. True when every exercise meets its floor."""
    from rich.text import Text

    from grader.mutants.report import as_json, render_markdown, render_text, write_html
    from grader.mutants.run import ExerciseMutants, mutate_exercises

    valid = [v.exercise.id for v in validations if v.ok]
    console.print(Text(f"\nGrading the mutants of {len(valid)} exercise{'s' if len(valid) != 1 else ''} "
                       f"({args.jobs} worker{'s' if args.jobs != 1 else ''})", style="bold"))
    graded = {e.exercise.id: e for e in mutate_exercises(course, course.load_all(valid), workers=args.jobs,
                                                          most=args.most or MUTANTS_MOST)}
    entries = []
    for validation in validations:
        entry = graded.get(validation.exercise.id)
        if entry is None:
            entry = ExerciseMutants(validation.exercise, skipped="the exercise does not validate: fix it first")
        entries.append(entry)
    if args.format == "json":
        import json

        json.dump(as_json(entries), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "markdown":
        render_markdown(entries, sys.stdout)
    else:
        render_text(entries, sys.stdout)
    if args.html is not None:
        console.print(f"wrote {write_html(entries, args.html)}")
    return all(e.ok for e in entries)


def _validations(course: Course, exercises: list[Exercise], recalibrate: bool, jobs: int,
                 variants: int = 0) -> Iterator[ExerciseValidation]:
    """Each exercise's validation, in order; with several jobs, in worker processes started fresh (each
    sandbox keeps a process of its own), after every time limit has been measured here, one at a time:
    measurements that compete for the CPU would be slower than the machine is."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from grader.calibration import CalibrationError, calibrate
    from grader.validation import validate_exercise

    if jobs <= 1 or len(exercises) <= 1:
        for exercise in exercises:
            yield validate_exercise(course, exercise.id, recalibrate=recalibrate, variants=variants)
        return
    for exercise in exercises:
        if exercise.params is not None:
            continue  # proved on its variants, not calibrated
        try:
            calibrate(exercise, force=recalibrate)
        except CalibrationError:
            pass  # the worker's validation reports it
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(validate_exercise, course, exercise.id, variants=variants) for exercise in exercises]
        for future in futures:
            yield future.result()


def run_calibrate(args: argparse.Namespace) -> ExitCode:
    from rich.text import Text

    from grader.calibration import CalibrationError, calibrate, machine, python_version
    from grader.course import Course
    from grader.validation.render import calibration_table

    course = Course.at(args.exercises)
    exercises = course.load_all(_selected(course, args.ids), as_written=True)
    console = _console()
    console.print(Text(f"machine: {machine()}\nsandbox interpreter: {python_version()}", style="dim"))
    failed = 0
    for exercise in exercises:
        try:
            calibration = calibrate(exercise, force=args.force)
        except CalibrationError as error:
            console.print(Text(f"✗ {exercise.id}: {error}", style="red"))
            failed += 1
            continue
        if calibration is None:
            console.print(Text(f"{exercise.id}: a {exercise.kind} exercise runs no timed code", style="dim"))
            continue
        console.print(calibration_table(calibration, {t.name for t in exercise.tests if t.big}))
        console.print()
    if args.out is not None:
        _say_stale(course, [e.id for e in exercises], args.out, console)
    return ExitCode.TESTS_FAILED if failed else ExitCode.OK


def _say_stale(course: Course, ids: list[str], out: Path, console: Console) -> None:
    from rich.text import Text

    from grader.calibration import stale_results

    lines = stale_results(course.load_all(ids), out / "results.sqlite")
    for line in lines:
        console.print(Text(line, style="yellow"))
    if not lines:
        console.print(Text(f"no stored result in {out} was graded under other CPU limits", style="dim"))


def run_import(args: argparse.Namespace) -> ExitCode:
    from rich.text import Text

    from grader.course import Course
    from grader.lesson import LessonError, import_lesson

    course_dir = Path(args.exercises) if args.exercises else Course.at(None).exercises_dir
    try:
        written = import_lesson(Path(args.lesson), course_dir, force=args.force)
    except LessonError as error:
        console = _console()
        for problem in error.problems:
            console.print(Text(problem, style="red"))
        count = len(error.problems)
        console.print(Text(f"{count} problem{'s' if count != 1 else ''} in the lesson; nothing was written",
                           style="bold red"))
        return ExitCode.SPEC_ERROR
    console = _console()
    for exercise in written:
        console.print(f"wrote {exercise.spec} and {exercise.reference}")
    ids = " ".join(exercise.id for exercise in written)
    console.print(Text(f"Next: grader validate --exercises {course_dir} {ids}", style="bold"))
    return ExitCode.OK


def run_export(args: argparse.Namespace) -> ExitCode:
    from rich.text import Text

    from grader.course import Course
    from grader.platforms.student.bundle import export_student_bundle

    targets = [args.student, args.gradescope, args.prairielearn, args.github_classroom]
    if sum(bool(target) for target in targets) != 1:
        args.parser.error("give one of --student DIR, --gradescope ZIP, --prairielearn DIR or --github-classroom DIR")
    if args.match and not args.gradescope:
        args.parser.error("--match is for --gradescope")
    course = Course.at(args.exercises)
    exercises = course.load_all(_selected(course, args.ids), as_written=True)
    if args.gradescope:
        return _export_gradescope(exercises, args)
    if args.prairielearn or args.github_classroom:
        return _export_folder(exercises, args)
    console = _console()
    exercises = _for_bundle(exercises, args.as_student, console)
    bundle = export_student_bundle(exercises, Path(args.student), force=args.force)
    for line in bundle.lines():
        console.print(line)
    console.print(Text(f"Students run, in {bundle.root} (a course) or below it: grader check ID FILE", style="bold"))
    return ExitCode.OK


def _for_bundle(exercises: list[Exercise], student: str | None, console: Console) -> list[Exercise]:
    """A student bundle's exercises: one with params as `student`'s variant, rendered (the bundle holds no
    secret and no reference: its spec is that student's); left out of a bundle made for no one."""
    from grader.variants import for_student

    if student is not None:
        return [for_student(e, student) for e in exercises]
    for exercise in exercises:
        if exercise.params is not None:
            console.print(f"{exercise.id}: left out, it has params (a variant per student): "
                          f"grader export --student DIR --as-student ID makes a bundle for one student")
    return [e for e in exercises if e.params is None]


def _export_gradescope(exercises: list[Exercise], args: argparse.Namespace) -> ExitCode:
    from rich.text import Text

    from grader.batch.discover import NameRule, extension
    from grader.platforms.gradescope.bundle import write_gradescope_bundle

    match = tuple(args.match or ())
    NameRule(match)  # a template without {id} is refused now, not on Gradescope
    bundle = write_gradescope_bundle(exercises, Path(args.gradescope), match=match, force=args.force)
    console = _console()
    console.print(f"wrote {bundle.path}: {count(len(bundle.exercises), 'exercise')} ({', '.join(bundle.exercises)}), "
                  f"{bundle.wheel}")
    console.print(Text("Upload it on the assignment's Configure Autograder page; students hand in "
                       + ", ".join(f"{e.id}.{extension(e)}" for e in exercises[:3]) + (" ..." if len(exercises) > 3 else ""),
                       style="bold"))
    return ExitCode.OK


def _export_folder(exercises: list[Exercise], args: argparse.Namespace) -> ExitCode:
    from rich.text import Text

    console = _console()
    if args.prairielearn:
        from grader.platforms.prairielearn.bundle import write_prairielearn_bundle

        image = write_prairielearn_bundle(exercises, Path(args.prairielearn), force=args.force)
        console.print(f"wrote {image.root}: {count(len(image.exercises), 'exercise')}, {image.wheel}, Dockerfile, README.md")
        console.print(Text(f"Next: docker build -t YOUR-ACCOUNT/grader {image.root}; each question's info.json: "
                           f"{image.root / 'README.md'}", style="bold"))
        return ExitCode.OK
    from grader.platforms.github_classroom.bundle import WORKFLOW, write_classroom_bundle

    template = write_classroom_bundle(exercises, Path(args.github_classroom), force=args.force)
    for line in template.student.lines():
        console.print(line)
    console.print(f"wrote {template.root / WORKFLOW}: one step per exercise ({', '.join(template.runners)}), "
                  f"installing {template.wheel}")
    console.print(Text(f"Next: push {template.root} as the assignment's template repository", style="bold"))
    return ExitCode.OK


def run_new(args: argparse.Namespace) -> ExitCode:
    from rich.text import Text

    from grader.course import BUNDLED_EXERCISES, COURSE_FILE, Course
    from grader.scaffold import new_exercise

    console = _console()
    exercises_dir = Path(args.exercises) if args.exercises else Course.at(None).exercises_dir
    if not args.exercises and exercises_dir.resolve() == BUNDLED_EXERCISES.resolve():
        # No course here or above: never write into the grader's own bundled course; make one here.
        here = Path.cwd()
        (here / COURSE_FILE).write_text("# A course folder: `grader` run anywhere under this folder grades these "
                                        "exercises.\ntitle: My course\nexercises: exercises\n", encoding="utf-8")
        exercises_dir = here / "exercises"
        exercises_dir.mkdir(exist_ok=True)
        console.print(f"no course in {here} or above it: made one here ({COURSE_FILE}, exercises/, reference/)")
    created = new_exercise(exercises_dir, args.id, args.kind, args.form)
    for path in created:
        console.print(f"wrote {path}")
    console.print(Text(f"Fill in every TODO, then: grader validate --exercises {exercises_dir} {args.id}",
                       style="bold"))
    return ExitCode.OK
