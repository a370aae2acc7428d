"""What a platform's runner calls: `grader gradescope-run`, Gradescope's run_autograder for one submission, and
`grader prairielearn-run`, a PrairieLearn question's entrypoint for one job."""

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
    help_text = ("grade one PrairieLearn job: the exercise ID from the file in ROOT/student/, into "
                 "ROOT/results/results.json (the question's entrypoint: no shell needed)")
    job = subparsers.add_parser("prairielearn-run", help=help_text, description=help_text)
    job.add_argument("id", metavar="ID", help="the exercise the question grades")
    job.add_argument("--root", metavar="ROOT", help="PrairieLearn's folder (default: /grade)")
    job.add_argument("--exercises", metavar="DIR", help="exercises folder (default: $GRADER_EXERCISES, which the "
                                                        "image from `grader export --prairielearn` sets)")
    job.add_argument("--match", metavar="TEMPLATE", action="append", default=None,
                     help="file-name rule, as `grader batch --match` (default: {id}.{ext})")
    job.set_defaults(run=run_prairielearn)


def run_gradescope(args: argparse.Namespace) -> ExitCode:
    from grader.batch.discover import NameRule
    from grader.course import Course
    from grader.errors import UsageError
    from grader.platforms.gradescope_run import AutograderRoot, failure_results, grade_submission, write_results

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


def run_prairielearn(args: argparse.Namespace) -> ExitCode:
    from pathlib import Path

    from grader.batch.discover import NameRule
    from grader.course import Course
    from grader.platforms.gradescope_run import write_results
    from grader.platforms.prairielearn_run import DEFAULT_ROOT, JobRoot, failure_results, grade_job

    where = JobRoot(Path(args.root) if args.root else DEFAULT_ROOT)
    try:
        course = Course.at(args.exercises)  # the image sets GRADER_EXERCISES
        data = grade_job(where, course, args.id, NameRule(tuple(args.match)) if args.match else NameRule())
    except Exception as error:
        # PrairieLearn reads results.json only after exit 0: say what failed there, and in the job's log.
        write_results(where.results, failure_results(error))
        print(f"grader prairielearn-run: {type(error).__name__}: {error}")
        return ExitCode.OK
    write_results(where.results, data)
    print(f"wrote {where.results}: score {data.get('score')}")
    return ExitCode.OK
