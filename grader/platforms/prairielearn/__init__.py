"""PrairieLearn: its external grader's image (`grader export --prairielearn`: bundle.py), its job
(`grader prairielearn-run`: command.py, run.py) and its results.json (output.py, the `prairielearn` output
format)."""
