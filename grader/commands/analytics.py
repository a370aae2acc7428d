"""What an instructor runs to see what students get wrong: `grader analytics RESULTS`, from a batch's store."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.commands.arguments import whole_number
from grader.exit_codes import ExitCode

EXIT_CODES = """exit status:
  0    the analytics were written (whatever the class scored)
  2    usage error (bad option, no batch results there, an exercise nobody handed in, --mutants unreadable)
  4    internal error"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "analytics", help="what students get wrong: failing shares, wrong answers, mutants, per test",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="From the grades a batch produced: per exercise and per test, the share of students failing "
                    "it (by first, latest and best submission), the commonest wrong answers grouped with an "
                    "example each, the attempts and time to a first pass, and the mutants of grader validate "
                    "--mutants that fail the same tests as a group of students. Staff only: hidden tests' "
                    "answers are in it.")
    parser.add_argument("results", metavar="RESULTS", type=Path,
                        help="a batch's --out folder, or its results.sqlite")
    parser.add_argument("--format", choices=("json", "csv"), default="json",
                        help="json: one document (schema: grader/schemas/analytics.schema.json); csv: a table per "
                             "level, in a folder (default: json)")
    parser.add_argument("--out", metavar="PATH", type=Path, default=None,
                        help="json: the file to write (default: print it); csv: the folder to write "
                             "(default: RESULTS/analytics)")
    parser.add_argument("--mutants", metavar="FILE", type=Path, default=None,
                        help="what grader validate --mutants --format json wrote: name the mutants that fail the "
                             "same tests as a group of students")
    parser.add_argument("--exercise", metavar="ID", action="append", default=None,
                        help="only this exercise (repeatable; default: every exercise someone handed in)")
    parser.add_argument("--top", metavar="N", type=whole_number(1, 10_000), default=None,
                        help="wrong answers per test and failure patterns per exercise (default: 10)")
    parser.set_defaults(run=run_analytics, parser=parser)


def run_analytics(args: argparse.Namespace) -> ExitCode:
    import sys

    from grader.analytics.batch_store import from_store, store_path
    from grader.analytics.engine import TOP, analyse
    from grader.analytics.export import json_text, write_csv, write_json
    from grader.analytics.mutants import load_mutants
    from grader.errors import UsageError
    from grader.text import escape_controls

    store = store_path(args.results)
    mutants = load_mutants(args.mutants) if args.mutants else None
    handins = from_store(store)
    if args.exercise:
        handed_in = {h.exercise for h in handins}
        unknown = [e for e in args.exercise if e not in handed_in]
        if unknown:
            raise UsageError(f"nobody handed in {', '.join(map(escape_controls, unknown))} in {store} "
                             f"(handed in: {', '.join(map(escape_controls, sorted(handed_in))) or 'nothing'})")
        handins = [h for h in handins if h.exercise in args.exercise]
    analytics = analyse(handins, mutants=mutants, top=args.top or TOP)
    for note in analytics["notes"]:  # type: ignore[attr-defined]
        print(f"note: {escape_controls(note)}", file=sys.stderr)
    if args.format == "json" and args.out is None:
        sys.stdout.write(json_text(analytics))
        return ExitCode.OK
    try:
        if args.format == "json":
            path = args.out / "analytics.json" if args.out.is_dir() else args.out
            path.parent.mkdir(parents=True, exist_ok=True)
            written = write_json(analytics, path)
        else:
            folder = args.out or store.parent / "analytics"
            if folder.exists() and not folder.is_dir():
                raise UsageError(f"--out {folder} is a file, not a folder")
            written = write_csv(analytics, folder)
    except OSError as error:
        raise UsageError(f"cannot write the analytics: {error.strerror or error} ({error.filename})") from None
    for path in written:
        print(f"wrote {path}")
    return ExitCode.OK
