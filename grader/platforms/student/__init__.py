"""The student's own machine: the bundle `grader export --student` writes (bundle.py: visible tests with
their expected values, no hidden test, no reference), which `grader check` runs there. GitHub Classroom's
template holds it too."""
