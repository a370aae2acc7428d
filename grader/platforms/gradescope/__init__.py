"""Gradescope: its bundle (`grader export --gradescope`: bundle.py, with run_autograder and the shared
setup.sh), its run (`grader gradescope-run`: command.py, run.py) and its results.json (results.py builds it,
output.py is the `gradescope` output format of `grader check` and `grader batch`)."""
