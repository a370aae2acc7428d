"""`python -m grader` runs the command line."""

from grader.cli import run

run()
