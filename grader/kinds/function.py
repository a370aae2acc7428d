"""A module that defines a function (or class) the tests call: the returned value, or what the call
prints, is compared."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from grader.kinds.base import SpecReader, SubmissionKind
from grader.model import Compare

if TYPE_CHECKING:
    import yaml

FUNCTION_SPEC = '''title: TODO one line that names the task
kind: function
entry: {entry}
statement: |
  TODO: what `{entry}(n)` returns, the type of the result, the largest input it must handle in
  time, and an example:

  ```python
  >>> {entry}(3)
  ...
  ```
starter: |
  def {entry}(n):
      pass
hints:
  - TODO the first step, without the answer.
# limits: {{cpu: 2}}               # a written CPU limit overrides the calibrated one (see `grader validate`)
# calibration: {{floor: 1.0, multiplier: 3}}
tests:
  # No `expect`: the primary reference (accepted/plain.py) supplies it. Write one down to have the reference confirm it.
  - name: {entry}(1)
    call: {entry}(1)
  - name: {entry}(3)
    call: {entry}(3)
  # A hidden test's name is all a student sees of it: say what it checks, never its input.
  - name: a middle-sized n
    call: {entry}(5)
    hidden: true
  - name: a large n, in time
    call: {entry}(20)
    hidden: true
    big: true                      # the too-slow references in timeout/ must time out here
'''

FUNCTION_REFERENCES = {
    "accepted/plain.py": '''"""TODO: the plain solution, written the way the statement and hints suggest."""


def {entry}(n):
    raise NotImplementedError("TODO: the reference solution")
''',
    "accepted/fast.py": '''"""TODO: a second correct style (a faster one): both must pass, and the slower sets the time limit."""


def {entry}(n):
    raise NotImplementedError("TODO: a second reference solution")
''',
    "wrong_answer/off_by_one.py": '''"""TODO: a mistake students make (off by one, 0-based output, unsorted, a key not removed...):
at least one test must catch it."""


def {entry}(n):
    raise NotImplementedError("TODO: a wrong solution")
''',
    "timeout/brute_force.py": '''"""TODO: a correct but too slow solution: the big test's limit must stop it."""


def {entry}(n):
    raise NotImplementedError("TODO: a slow solution")
''',
}


CLASS_SPEC = """title: TODO one line that names the class
kind: function
entry: {entry}
statement: |
  TODO: what a `{entry}` is, each method with what it returns and what it raises, and an example:

  ```python
  >>> thing = {entry}()
  >>> thing.add(3)
  >>> len(thing)
  1
  ```
starter: |
  class {entry}:
      def __init__(self):
          pass

      def add(self, item):
          pass

      def __len__(self):
          pass
hints:
  - TODO the first step, without the answer.
tests:
  # Each test is a sequence of steps on one object. A statement runs; an expression's value (or exception)
  # is compared with the first accepted reference's, unless the step writes its own. Quote a `do` that
  # holds a comma: YAML splits {{do: f(1, 2)}} at the comma.
  - name: a new {entry} is empty
    steps:
      - thing = {entry}()
      - len(thing)
  - name: add() counts
    steps:
      - thing = {entry}()
      - thing.add(3)
      - thing.add(4)
      - len(thing)
  - name: a refused item
    steps:
      - thing = {entry}()
      - {{do: "thing.add(None)", raises: ValueError}}
    feedback: "TODO the hint a student sees when this test fails"
    hidden: true
"""

CLASS_REFERENCES = {
    "accepted/plain.py": '''"""TODO: the plain class, written the way the statement and hints suggest."""


class {entry}:
    def __init__(self):
        raise NotImplementedError("TODO: the reference class")
''',
    "accepted/other_style.py": '''"""TODO: a second correct style (another data structure): both must pass."""


class {entry}:
    def __init__(self):
        raise NotImplementedError("TODO: a second reference class")
''',
    "wrong_answer/shared_state.py": '''"""TODO: a mistake students make (state kept on the class, a missing raise, a method that returns
the object's own list...): at least one test must catch it."""


class {entry}:
    def __init__(self):
        raise NotImplementedError("TODO: a wrong class")
''',
}

FUNCTION_FORMS = {"plain": (FUNCTION_SPEC, FUNCTION_REFERENCES), "class": (CLASS_SPEC, CLASS_REFERENCES)}


class FunctionKind(SubmissionKind):
    name = "function"
    scaffold_forms = tuple(FUNCTION_FORMS)
    default_compare: Compare = "value"
    compares: tuple[Compare, ...] = ("value", "output")
    harness_mode = "module"
    returns = True

    def check_exercise(self, reader: SpecReader, keys: dict[str, yaml.Node], root: yaml.Node,
                       entry: str | None) -> None:
        if entry is None:
            reader.problem(root, "missing key 'entry': a function exercise names the function or class to define")

    def test_input(self, reader: SpecReader, keys: dict[str, yaml.Node], node: yaml.Node,
                   where: str) -> tuple[str | None, str | None]:
        if "stdin" in keys:
            reader.problem(keys["stdin"], f"'stdin' is for program exercises; this is a {self.name} exercise")
        if "call" not in keys:
            if "name" in keys:
                reader.problem(node, f"missing key 'call' in {where}: a function test calls the submission")
            return None, None
        call = reader.text(keys["call"], "call").strip()
        try:
            ast.parse(call, mode="eval")
        except SyntaxError as error:
            reader.problem(keys["call"], f"the call of {where} is not a Python expression: {error.msg}")
        return call, None

    def scaffold(self, entry: str, form: str = "plain") -> tuple[str, dict[str, str]]:
        if form == "class":
            entry = "".join(part.capitalize() for part in entry.split("_")) or "Solve"  # count_rooks -> CountRooks
        spec, references = FUNCTION_FORMS[form]
        return spec.format(entry=entry), {path: text.replace("{entry}", entry) for path, text in references.items()}
