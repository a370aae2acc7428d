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
  # A hidden test's name is all a student sees of it: say what it checks, never its input.
  - name: a middle-sized n
    stdin: "5\\n"
    hidden: true
  - name: a large n, in time
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

FILES_SPEC = """title: TODO one line that names the task
kind: program
statement: |
  TODO: how the program is run (`python prog.py INPUT OUT`), what it reads from INPUT, what it writes to
  OUT, what it prints, and what it does when INPUT cannot be read (message on stderr, exit status 1).
starter: |
  import sys

  input_name, out_name = sys.argv[1], sys.argv[2]
hints:
  - TODO the first step, without the answer.
tests:
  # `args` is sys.argv[1:]; `files` are written into the working folder first (plain file names);
  # `output_files` are compared with the first accepted reference's files (or write `expect_files`);
  # stdout, the exit status and stderr too, where the test says.
  - name: a small input
    args: [input.txt, out.txt]
    files: {input.txt: "3\\n"}
    output_files: [out.txt]
  - name: other file names
    args: [numbers.txt, result.txt]
    files: {numbers.txt: "5\\n"}
    output_files: [result.txt]
    hidden: true
  - name: the input cannot be read
    args: [missing.txt, out.txt]
    output_files: [out.txt]
    exit_status: 1
    stderr: nonempty
    expect: ""
    feedback: "TODO the hint: a message on stderr, status 1, no OUT file"
"""

FILES_REFERENCES = {
    "accepted/plain.py": '"""TODO: the plain solution."""\n\nimport sys\n\nraise NotImplementedError("TODO")\n',
    "accepted/pathlib.py": '"""TODO: a second correct style."""\n\nimport sys\n\nraise NotImplementedError("TODO")\n',
    "wrong_answer/fixed_names.py": '"""TODO: a mistake a test must catch (fixed file names, OUT written '
                                   'before INPUT is read...)."""\n\nraise NotImplementedError("TODO")\n',
}

PROGRAM_FORMS = {"plain": (PROGRAM_SPEC, PROGRAM_REFERENCES), "files": (FILES_SPEC, FILES_REFERENCES)}


class ProgramKind(SubmissionKind):
    name = "program"
    scaffold_forms = tuple(PROGRAM_FORMS)

    def test_input(self, reader: SpecReader, keys: dict[str, yaml.Node], node: yaml.Node,
                   where: str) -> tuple[str | None, str | None]:
        if "call" in keys:
            reader.problem(keys["call"], f"'call' is for function exercises; this is a {self.name} exercise")
        return None, reader.text(keys["stdin"], "stdin") if "stdin" in keys else ""

    def scaffold(self, entry: str, form: str = "plain") -> tuple[str, dict[str, str]]:
        spec, references = PROGRAM_FORMS[form]
        return spec, dict(references)
