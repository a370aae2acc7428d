"""GitHub Classroom: its template repository (`grader export --github-classroom`: bundle.py, the student
bundle and a workflow) and the reporter's result (output.py, the `github-classroom` output format, which
each of the workflow's `grader check` steps prints)."""
