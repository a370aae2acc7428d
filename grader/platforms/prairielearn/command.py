"""`grader prairielearn-run ID`: a PrairieLearn question's entrypoint for one job. Light to import: the CLI
builds its parser at every start."""

from __future__ import annotations

import argparse

from grader.exit_codes import ExitCode


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
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


def run_prairielearn(args: argparse.Namespace) -> ExitCode:
    from pathlib import Path

    from grader.batch.discover import NameRule
    from grader.course import Course
    from grader.platforms.prairielearn.run import DEFAULT_ROOT, JobRoot, failure_results, grade_job
    from grader.platforms.shared.results import write_results

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
