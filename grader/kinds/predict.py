"""A prediction: the student types the lines a snippet prints; the text is compared with what the snippet
prints, and nothing the student wrote is run. It teaches: the report marks each line right or wrong
without the answer, a known wrong answer gets its hint (okpy's misconception guidance), and the answer is
shown only after the attempts the spec sets (`reveal_after: 3`, or `never`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from grader.checkers import judge_lines
from grader.kinds.base import SpecReader, SubmissionKind, as_program
from grader.model import MISSING, Exercise, Outcome, RunResult, Test, Verdict
from grader.words import count
from grader.records import record

if TYPE_CHECKING:
    import yaml

DEFAULT_REVEAL_AFTER = 3  # wrong checks before the answer is shown, when the spec does not say
OWN_KEYS = ("reveal_after", "misconceptions")
MISCONCEPTION_KEYS = ("output", "hint")
HINT = "hint: "  # the line of a prediction's details that gives a misconception's hint


@record
class Misconception:
    output: str  # a wrong answer students give, compared as the answer is (line by line)
    hint: str  # what that answer tells about their reading of the snippet


@record
class Teaching:
    """How a predict question answers a wrong prediction."""

    reveal_after: int | None = DEFAULT_REVEAL_AFTER  # None: never
    misconceptions: tuple[Misconception, ...] = ()

    def hint_for(self, answer: str) -> str:
        lines = judge_lines(answer)
        return next((m.hint for m in self.misconceptions if judge_lines(m.output) == lines), "")

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
        _teaching(reader, keys)

    own_keys = OWN_KEYS

    def review(self, exercise: Exercise, outcome: Outcome, answer: str, expected: object,
               attempt: int | None) -> Outcome:
        """A checked prediction as the student sees it: each line marked right or wrong, the hint of a known
        wrong answer, and the answer itself only from the attempt the spec sets (`attempt` None: never
        counted, as in a batch, where the answer is not shown)."""
        if outcome.verdict != Verdict.WRONG_ANSWER:
            return outcome
        teaching = teaching_of(exercise)
        marks, summary = mark_lines(str(expected), answer)
        hint = teaching.hint_for(answer)
        revealed = attempt is not None and teaching.reveal_after is not None and attempt >= teaching.reveal_after
        if revealed:
            summary += "; the answer is shown below"
        elif attempt is not None and teaching.reveal_after is not None:
            left = teaching.reveal_after - attempt
            summary += f"; the answer is shown after {count(left, 'more wrong check')}"
        return replace(outcome, feedback=summary, details=marks + (f"\n{HINT}{hint}" if hint else ""),
                       expected=str(expected) if revealed else None, actual=answer)

    def truth(self, exercise: Exercise) -> tuple[str | Path, Exercise] | None:
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



def mark_lines(expected: str, answer: str) -> tuple[str, str]:
    """Each predicted line marked right (✓) or wrong (✗), never showing the expected line; and a summary."""
    want, got = judge_lines(expected), judge_lines(answer)
    rows = [f"{'✓' if i < len(want) and line == want[i] else '✗'} {line}" for i, line in enumerate(got)]
    right = sum(row.startswith("✓") for row in rows)
    if len(got) < len(want):
        rows.append(f"✗ ({count(len(want) - len(got), 'line')} missing)")
    summary = f"{right} of {count(len(want), 'line')} right"
    if len(got) > len(want):
        summary += f", {len(got) - len(want)} too many"
    return "\n".join(rows), summary


def teaching_of(exercise: Exercise) -> Teaching:
    """The spec's teaching keys, read again from its file: the exercise model has no room for kind-only keys."""
    import yaml

    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        root = yaml.compose(exercise.path.read_text(encoding="utf-8"), Loader=loader)
    except (OSError, yaml.YAMLError):
        return Teaching()
    keys = {k.value: v for k, v in root.value} if isinstance(root, yaml.MappingNode) else {}
    return _teaching(_Quiet(), keys)


class _Quiet:
    """A reader that ignores problems: the spec was checked when it was loaded."""

    def problem(self, node: yaml.Node, message: str) -> None:
        pass


def _teaching(reader: SpecReader | _Quiet, keys: dict[str, yaml.Node]) -> Teaching:
    import yaml

    teaching = Teaching()
    node = keys.get("reveal_after")
    if node is not None:
        value = node.value if isinstance(node, yaml.ScalarNode) else None
        if value == "never":
            teaching = replace(teaching, reveal_after=None)
        elif isinstance(value, str) and value.isdigit() and int(value) >= 1:
            teaching = replace(teaching, reveal_after=int(value))
        else:
            reader.problem(node, "'reveal_after' must be a whole number of wrong checks (1 or more) or 'never'")
    node = keys.get("misconceptions")
    if node is None:
        return teaching
    if not isinstance(node, yaml.SequenceNode):
        reader.problem(node, "'misconceptions' must be a list of {output: ..., hint: ...}")
        return teaching
    found = []
    for item in node.value:
        if not isinstance(item, yaml.MappingNode):
            reader.problem(item, "a misconception must be a mapping with 'output' and 'hint'")
            continue
        fields = {}
        for key_node, value_node in item.value:
            key = str(key_node.value)
            if key not in MISCONCEPTION_KEYS:
                reader.problem(key_node, f"unknown key '{key}' in a misconception; known keys: output, hint")
            elif not isinstance(value_node, yaml.ScalarNode) or not str(value_node.value).strip():
                reader.problem(value_node, f"a misconception's '{key}' must be text")
            else:
                fields[key] = str(value_node.value)
        for key in MISCONCEPTION_KEYS:
            if key not in fields and not any(str(k.value) == key for k, _ in item.value):
                reader.problem(item, f"a misconception needs '{key}'")
        if len(fields) == 2:
            found.append(Misconception(fields["output"], fields["hint"]))
    return replace(teaching, misconceptions=tuple(found))
