"""Where courses run: Gradescope's autograder bundle and its one-submission run, and each platform's own
results format (the formats themselves are outputs: grader/outputs/)."""

from grader.version import DISTRIBUTION

__all__ = ["DISTRIBUTION"]
