"""A spec's `quality:`: ruff's issues on a hand-in, mapped to the exercise's categories, each off, feedback
or graded; only what the student introduced (not the starter's own issues) counts, with caps per category and
for the exercise. data.py holds the records (below the model), ruff.py runs ruff bounded, judge.py decides."""
