"""A prediction: the student types the lines a snippet prints; the text is compared with what the snippet
prints, and nothing the student wrote is run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.kinds.base import SpecReader, SubmissionKind, as_program
from grader.model import MISSING, Exercise, RunResult, Test

if TYPE_CHECKING:
    import yaml

PREDICT_SPEC = '''title: TODO one line that names the question
kind: predict
statement: |
  TODO: what the snippet does; ask the student to write exactly the lines it prints.
snippet: |
  for i in range(3):
      print(i, i * i)
hints:
  - TODO what to trace first.
tests:
  # The snippet supplies the answer; the answers in reference/<id>/ are checked against it.
  - name: Output
'''

PREDICT_REFERENCES = {
    "accepted/answer.txt": "TODO: the lines the snippet prints\n",
    "wrong_answer/common_mistake.txt": "TODO: an answer students get wrong\n",
}


class PredictKind(SubmissionKind):
    name = "predict"
    suffix = ".txt"
    runs_code = False
    starter_lexer = "text"
    lists_tests = False  # its only test is the answer itself
    truth_label = "the snippet"
    expect_label = "the predict answer"

    def check_exercise(self, reader: SpecReader, keys: dict[str, yaml.Node], root: yaml.Node,
                       entry: str | None) -> None:
        super().check_exercise(reader, keys, root, entry)
        if "snippet" not in keys:
            reader.problem(root, "missing key 'snippet': a predict exercise needs the code whose output is predicted")

    def truth(self, exercise: Exercise) -> tuple[str, Exercise] | None:
        return exercise.snippet, as_program(exercise, exercise.tests[0])  # the snippet's output is the answer

    def unwritten(self, exercise: Exercise) -> list[Test]:
        # One answer for all: written on any test, it is every test's; otherwise the snippet gives it.
        return [] if any(test.expect is not MISSING for test in exercise.tests) else list(exercise.tests)

    def judged_here(self, source: str) -> RunResult:
        return RunResult(stdout=source)

    def scaffold(self, entry: str, form: str = "plain") -> tuple[str, dict[str, str]]:
        return PREDICT_SPEC, dict(PREDICT_REFERENCES)

    def shown_code(self, exercise: Exercise) -> str:
        return exercise.snippet

    def exported_expectations(self, exercise: Exercise) -> bool:
        return False  # `grader check` runs the snippet

