"""A program that reads standard input and prints its answer: the printed text is compared."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.kinds.base import SpecReader, SubmissionKind

if TYPE_CHECKING:
    import yaml

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

PROGRAM_REFERENCES = {
    "accepted/plain.py": '"""TODO: the plain solution."""\n\nn = int(input())\nraise NotImplementedError("TODO")\n',
    "accepted/fast.py": '"""TODO: a second correct style."""\n\nn = int(input())\nraise NotImplementedError("TODO")\n',
    "wrong_answer/off_by_one.py": '"""TODO: a mistake a test must catch."""\n\nn = int(input())\n'
                                  'raise NotImplementedError("TODO")\n',
    "timeout/brute_force.py": '"""TODO: a correct but too slow solution."""\n\nn = int(input())\n'
                              'raise NotImplementedError("TODO")\n',
}

class ProgramKind(SubmissionKind):
    name = "program"

    def test_input(self, reader: SpecReader, keys: dict[str, yaml.Node], node: yaml.Node,
                   where: str) -> tuple[str | None, str | None]:
        if "call" in keys:
            reader.problem(keys["call"], f"'call' is for function exercises; this is a {self.name} exercise")
        return None, reader.text(keys["stdin"], "stdin") if "stdin" in keys else ""

    def scaffold(self, entry: str) -> tuple[str, dict[str, str]]:
        return PROGRAM_SPEC, dict(PROGRAM_REFERENCES)
