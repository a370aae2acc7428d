"""grader env: build and show the course's environment (the packages its students may import)."""

from __future__ import annotations

import argparse

from grader.exit_codes import ExitCode


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "env", help="build or show the course's environment (numpy, pandas...)",
        description="The packages a course's students may import, pinned in grader-course.yaml "
                    "(environment: packages / requirements). `build` makes it once per content, with progress; "
                    "checks never download. `show` says what it is and whether it is built.")
    parser.add_argument("action", choices=("build", "show", "requirements"),
                        help="build it; show it; print its pinned list (what a bundle carries)")
    parser.add_argument("--exercises", metavar="DIR", help="exercises folder (default: the course of the current "
                                                           "folder or above, else $GRADER_EXERCISES)")
    parser.set_defaults(run=run_env)


def run_env(args: argparse.Namespace) -> ExitCode:
    from grader.course import Course
    from grader.environment import build, environment_of_course

    course = Course.at(args.exercises)
    environment = environment_of_course(course.exercises_dir)
    if environment is None:
        print(f"the course in {course.exercises_dir} declares no environment: its submissions import the "
              f"standard library only (add `environment: {{packages: [numpy==...]}}` to grader-course.yaml)")
        return ExitCode.OK
    if args.action == "requirements":
        print(environment.requirements_text(), end="")
    elif args.action == "show":
        state = "built" if environment.built else "NOT built (run `grader env build`)"
        print(f"{environment.name}\n  declared in {environment.declared_in}\n  for {environment.interpreter}\n"
              f"  at {environment.path}: {state}")
    else:
        build(environment, progress=lambda line: print(line, flush=True))
    return ExitCode.OK
