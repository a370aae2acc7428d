"""What a teaching assistant runs to see which submissions share code: `grader similar CLASS`."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.exit_codes import ExitCode

SHOWN = 10  # pairs printed in the terminal; the HTML and the JSON have more

EXIT_CODES = """exit status:
  0    the comparison ran (whatever it found: similarity is a signal for a person, not a verdict)
  2    usage error (bad option, missing folder, unknown exercise)
  3    an exercise spec is broken
  4    internal error"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "similar", help="find submissions that share code beyond the starter", epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Compare every pair of students' files of each exercise, ignoring names, comments, spacing "
                    "and the order of functions, and not counting the starter code or the references. A high "
                    "score is a reason to read two files, not a verdict.")
    parser.add_argument("submissions", metavar="CLASS", type=Path, help="one sub-folder per student")
    parser.add_argument("--exercise", metavar="ID", action="append", default=None,
                        help="compare only this exercise (repeatable; default: every exercise someone handed in)")
    parser.add_argument("--exercises", metavar="DIR", type=Path, help="exercises folder (default: the course of the current folder or above, else $GRADER_EXERCISES, else the bundled one)")
    parser.add_argument("--match", metavar="TEMPLATE", action="append", default=None,
                        help="file-name rule, as grader batch has it (default: {id}.{ext})")
    parser.add_argument("--out", metavar="DIR", type=Path, default=Path("grader-out"),
                        help="where the HTML report goes: DIR/similarity/index.html (default: grader-out)")
    parser.add_argument("--format", choices=("html", "json"), default="html",
                        help="html: write the report and print the closest pairs; json: print every pair")
    parser.add_argument("--threshold", metavar="SCORE", type=_score, default=None,
                        help="pairs at or above it form groups (0 to 1; default: 0.5)")
    parser.set_defaults(run=run_similar, parser=parser)


def _score(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {value:g}")
    return value


def run_similar(args: argparse.Namespace) -> ExitCode:
    import json

    from rich.console import Console
    from rich.text import Text

    from grader.batch.discover import NameRule, discover
    from grader.course import Course
    from grader.errors import UsageError
    from grader.text import escape_controls
    from grader.similarity.analysis import THRESHOLD, analyse, comparable

    course = Course.at(args.exercises)
    for exercise_id in args.exercise or ():
        course.path_of(exercise_id)  # a usage error, with a "did you mean", for a typo
    exercises = course.load_all(args.exercise, as_written=True)
    if args.exercise and not comparable(exercises):
        raise UsageError("a predict exercise's answers are program outputs, meant to be alike: "
                         "nothing to compare")
    folder = discover(args.submissions, exercises, NameRule(tuple(args.match)) if args.match else NameRule())
    if not args.exercise:
        handed_in = folder.handed_in()
        exercises = [e for e in comparable(exercises) if e.id in handed_in]
        if not exercises:
            raise UsageError(f"no file in the student folders of {folder.root} answers a code exercise of "
                             f"{course.exercises_dir} (files are named <exercise-id>.py, or see --match)")
    similarity = analyse(folder, exercises, THRESHOLD if args.threshold is None else args.threshold)
    if args.format == "json":
        print(json.dumps(similarity.json(), indent=2))
        return ExitCode.OK

    from grader.similarity.html import write

    out = Console(highlight=False, emoji=False, soft_wrap=True)
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} is a file, not a folder")
    written = write(similarity, args.out)
    out.print(Text("Similarity is a signal for a person to look at, not a verdict.", style="bold"))
    close = [p for p in similarity.pairs if p.score > 0][:SHOWN]
    if not close:
        out.print("No two files share code beyond the starter and the references.")
    for pair in close:
        # Names are the students' folder names: untrusted, so never read as markup or control characters.
        out.print(Text(f"{pair.score:6.1%}  {pair.exercise}  {escape_controls(pair.a.student)} and "
                       f"{escape_controls(pair.b.student)}"))
    for group in similarity.groups:
        out.print(Text(f"group ({group.exercise}, {group.top_score:.0%} at closest): "
                       + ", ".join(escape_controls(s) for s in group.students), style="yellow"))
    for item in similarity.skipped:
        out.print(Text(f"not compared: {escape_controls(item)}", style="yellow"))
    for path in written:
        out.print(f"wrote {path}")
    return ExitCode.OK
