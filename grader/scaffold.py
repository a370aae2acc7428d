"""`grader new ID`: an exercise spec and its reference folders, each with a TODO to fill in. The spec loads
as it is; `grader validate` fails on every TODO left and passes once they are written."""

from __future__ import annotations

from pathlib import Path

from grader.errors import UsageError
from grader.spec import ID_PATTERN

KINDS = ("function", "program", "predict")

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
  # No `expect`: the first accepted reference supplies it. Write one down to have the reference confirm it.
  - name: {entry}(1)
    call: {entry}(1)
  - name: {entry}(3)
    call: {entry}(3)
  - name: {entry}(5)
    call: {entry}(5)
    hidden: true
  - name: {entry}(20)
    call: {entry}(20)
    hidden: true
    big: true                      # the too-slow references in timeout/ must time out here
'''

PROGRAM_SPEC = '''title: TODO one line that names the task
kind: program
statement: |
  TODO: what the program reads on standard input, what it prints, and an example.
starter: |
  n = int(input())
hints:
  - TODO the first step, without the answer.
tests:
  # No `expect`: the first accepted reference supplies it. Write one down to have the reference confirm it.
  - name: n = 1
    stdin: "1\\n"
  - name: n = 3
    stdin: "3\\n"
  - name: n = 5
    stdin: "5\\n"
    hidden: true
  - name: n = 20
    stdin: "20\\n"
    hidden: true
    big: true                      # the too-slow references in timeout/ must time out here
'''

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

PROGRAM_REFERENCES = {
    "accepted/plain.py": '"""TODO: the plain solution."""\n\nn = int(input())\nraise NotImplementedError("TODO")\n',
    "accepted/fast.py": '"""TODO: a second correct style."""\n\nn = int(input())\nraise NotImplementedError("TODO")\n',
    "wrong_answer/off_by_one.py": '"""TODO: a mistake a test must catch."""\n\nn = int(input())\n'
                                  'raise NotImplementedError("TODO")\n',
    "timeout/brute_force.py": '"""TODO: a correct but too slow solution."""\n\nn = int(input())\n'
                              'raise NotImplementedError("TODO")\n',
}

PREDICT_REFERENCES = {
    "accepted/answer.txt": "TODO: the lines the snippet prints\n",
    "wrong_answer/common_mistake.txt": "TODO: an answer students get wrong\n",
}


def new_exercise(exercises_dir: Path, exercise_id: str, kind: str = "function") -> list[Path]:
    """Write exercises_dir/<id>.yaml and reference/<id>/...; refuses to overwrite anything."""
    if not ID_PATTERN.match(exercise_id):
        raise UsageError(f"'{exercise_id}' is not an exercise id: use lower-case letters, digits and '-'")
    if kind not in KINDS:
        raise UsageError(f"unknown kind '{kind}'; known kinds: {', '.join(KINDS)}")
    spec = exercises_dir / f"{exercise_id}.yaml"
    references = exercises_dir.parent / "reference" / exercise_id
    for path in (spec, references):
        if path.exists():
            raise UsageError(f"{path} exists: choose another id or remove it")
    entry = exercise_id.replace("-", "_")
    entry = entry if entry.isidentifier() else "solve"  # an id such as 2-sum is not a Python name
    template, files = {"function": (FUNCTION_SPEC, FUNCTION_REFERENCES), "program": (PROGRAM_SPEC, PROGRAM_REFERENCES),
                       "predict": (PREDICT_SPEC, PREDICT_REFERENCES)}[kind]
    exercises_dir.mkdir(parents=True, exist_ok=True)
    spec.write_text(template.format(entry=entry), encoding="utf-8")
    written = [spec]
    for name, text in files.items():
        path = references / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{entry}", entry), encoding="utf-8")
        written.append(path)
    return written
