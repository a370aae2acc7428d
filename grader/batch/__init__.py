"""`grader batch`: grade a whole class, in parallel, resumably, into a SQLite store and gradebooks.

discover (folders -> files) -> plan (files -> jobs, keyed by content) -> pool | cluster (jobs -> grade())
-> store (SQLite, as results arrive) -> outputs (CSV, JSON, Gradescope, JUnit, HTML) and summary.
"""
