"""Where courses run: Gradescope's autograder bundle and its one-submission run, and each platform's own
results format (the formats themselves are outputs: grader/outputs/)."""

DISTRIBUTION = "yaml-grader"  # the name on the package index: `grader` there is an unrelated 2012 project
