"""What a platform's runner calls: `grader gradescope-run`, Gradescope's run_autograder for one submission, and
`grader prairielearn-run`, a PrairieLearn question's entrypoint for one job. Each is its platform's own
(grader/platforms/<platform>/command.py): this row of COMMANDS only hands them the command line."""

from __future__ import annotations

import argparse


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from grader.platforms.gradescope.command import add_parser as gradescope
    from grader.platforms.prairielearn.command import add_parser as prairielearn

    gradescope(subparsers)
    prairielearn(subparsers)
