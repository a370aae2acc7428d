"""`grader gradescope-run`: what run_autograder calls for one submission. Light to import: the CLI builds
its parser at every start."""

from __future__ import annotations

import argparse

from grader.exit_codes import ExitCode


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    help_text = ("grade one Gradescope submission: every exercise of the bundle, from ROOT/submission/, into "
                 "ROOT/results/results.json (what run_autograder calls)")
    parser = subparsers.add_parser("gradescope-run", help=help_text, description=help_text)
    parser.add_argument("--root", metavar="ROOT",
                        help="Gradescope's folder (default: $GRADER_AUTOGRADER_ROOT, else /autograder)")
    parser.add_argument("--exercises", metavar="DIR", help="exercises folder (default: ROOT/source/exercises)")
    parser.add_argument("--match", metavar="TEMPLATE", action="append", default=None,
                        help="file-name rule, as `grader batch --match` (default: {id}.{ext})")
    parser.add_argument("--all", action="store_true", help="accepted for old scripts: a grade runs every test anyway")
    parser.set_defaults(run=run_gradescope)


def run_gradescope(args: argparse.Namespace) -> ExitCode:
    from grader.batch.discover import NameRule
    from grader.course import Course
    from grader.errors import UsageError
    from grader.platforms.gradescope.run import AutograderRoot, failure_results, grade_submission
    from grader.platforms.shared.results import write_results

    where = AutograderRoot.from_environment(args.root)
    try:
        course = Course.at(args.exercises or where.exercises)
        rule = NameRule(tuple(args.match)) if args.match else NameRule()
        if not where.submission.is_dir():
            raise UsageError(f"no submission folder at {where.submission}")
        data = grade_submission(where, course, rule)
    except Exception as error:
        # Gradescope shows the student nothing useful without a results.json: write one, then fail loudly
        # in stdout, which only the instructor sees.
        write_results(where.results, failure_results(error))
        raise
    write_results(where.results, data)
    print(f"wrote {where.results}: {data['score']} points, {len(data['tests'])} tests")  # type: ignore[arg-type]
    return ExitCode.OK
