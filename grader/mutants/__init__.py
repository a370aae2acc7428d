"""`grader validate --mutants`: mutants of the accepted references (rules.py), graded as a batch (run.py), probed when they survive (probes.py), reported (report.py)."""
