"""A program test with a command line and files: `args` (sys.argv[1:]), `files` written into its working
folder first, `output_files` read back after it and compared (with `expect_files`, or the reference's),
its `exit_status` (written, else the reference's, else 0) and its `stderr` ("nonempty", or a text it
must contain)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from grader.checkers import CheckResult, run_checker
from grader.model import MISSING, RunResult, Test

from grader.form_data import ProgramIO
from grader.forms.base import TestForm
from grader.records import record

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader

NONEMPTY = "nonempty"


@record
class ProgramAnswer:
    """What a program did, as plain data."""

    stdout: str
    files: tuple[tuple[str, str | None], ...]  # output file -> its text (None: not written)
    exit_status: int | None
    stderr: str


def _file_name(reader: SpecReader, node: yaml.Node, where: str) -> str:
    name = reader.text(node, where)
    if not name or "/" in name or "\\" in name or name in (".", "..") or "\0" in name:
        reader.problem(node, f"{where}: '{name}' must be a plain file name in the working folder (no folders)")
    return name


class ProgramIOForm(TestForm):
    name = "program-io"
    keys = ("args", "files", "output_files", "expect_files", "exit_status", "stderr")
    kinds = ("program",)
    judges_exit = True

    def read(self, reader: SpecReader, keys: dict[str, yaml.Node], test: Test, where: str) -> Test:
        import yaml

        args = reader.text_list(keys.get("args"), f"args of {where}")  # type: ignore[attr-defined]
        files: list[tuple[str, str]] = []
        expect_files: list[tuple[str, str]] = []
        for key, into in (("files", files), ("expect_files", expect_files)):
            node = keys.get(key)
            if node is None:
                continue
            if not isinstance(node, yaml.MappingNode):
                reader.problem(node, f"{key} of {where} must be a mapping of file names to their text")
                continue
            for name_node, text_node in node.value:
                into.append((_file_name(reader, name_node, f"{key} of {where}"),
                             reader.text(text_node, f"the text of {name_node.value} in {key} of {where}")))
        outputs: list[str] = []
        if "output_files" in keys:
            node = keys["output_files"]
            if not isinstance(node, yaml.SequenceNode):
                reader.problem(node, f"output_files of {where} must be a list of file names")
            else:
                outputs = [_file_name(reader, item, f"output_files of {where}") for item in node.value]
        for (name, _), name_node in zip(expect_files, keys["expect_files"].value if expect_files else []):
            if name not in outputs:
                reader.problem(name_node[0], f"expect_files of {where} names '{name}', which is not in output_files")
        status = reader.typed(keys.get("exit_status"), int, f"exit_status of {where}", None,  # type: ignore[attr-defined]
                              "a whole number from 0 to 255")
        if status is not None and not 0 <= status <= 255:
            reader.problem(keys["exit_status"], f"exit_status of {where} must be from 0 to 255, not {status}")
        stderr = reader.text(keys["stderr"], f"stderr of {where}") if "stderr" in keys else None
        if stderr == "":
            reader.problem(keys["stderr"], f"stderr of {where} must be '{NONEMPTY}' or a text it must contain")
        return replace(test, io=ProgramIO(tuple(args), tuple(files), tuple(outputs), tuple(expect_files),
                                          status, stderr))

    def request(self, test: Test) -> dict[str, object]:
        io = test.io or ProgramIO()
        return {"args": list(io.args), "files": list(io.files), "output_files": list(io.output_files)}

    def needs_reference(self, test: Test) -> bool:
        io = test.io or ProgramIO()
        written = dict(io.expect_files)
        return test.expect is MISSING or any(name not in written for name in io.output_files)

    def cache_part(self, test: Test) -> str:
        io = test.io or ProgramIO()
        return repr((io.args, io.files, io.output_files))

    def answer(self, result: RunResult, test: Test) -> object:
        return ProgramAnswer(result.stdout, result.files, result.exit_code, result.stderr)

    def check(self, test: Test, result: RunResult, expected: object) -> CheckResult:
        return self._judge(test, self.answer(result, test), expected)  # type: ignore[arg-type]

    def _judge(self, test: Test, got: ProgramAnswer, expected: object) -> CheckResult:
        io = test.io or ProgramIO()
        reference = expected if isinstance(expected, ProgramAnswer) else None
        status = io.exit_status if io.exit_status is not None else reference.exit_status if reference else 0
        if got.exit_status != status:
            return CheckResult(False, f"exited with status {got.exit_status}; expected status {status}",
                               got.stderr[-2000:], reason="status")
        stdout = test.expect if test.expect is not MISSING else reference.stdout if reference else ""
        check = run_checker(test.checker, stdout, got.stdout, test.stdin)
        if not check.passed:
            return replace(check, feedback=f"standard output: {check.feedback}", reason="output")
        written, theirs, made = dict(io.expect_files), dict(reference.files if reference else ()), dict(got.files)
        for name in io.output_files:
            want = written.get(name, theirs.get(name))
            if want is None and made.get(name) is not None:
                return CheckResult(False, f"{name}: it must not be written here", reason="file")
            if want is not None and made.get(name) is None:
                return CheckResult(False, f"{name}: the program did not write it", reason="file")
            if want is not None:
                check = run_checker(test.checker, want, made[name], test.stdin)
                if not check.passed:
                    return replace(check, feedback=f"{name}: {check.feedback}", reason="file")
        if io.stderr == NONEMPTY and not got.stderr.strip():
            return CheckResult(False, "printed nothing on standard error", reason="stderr")
        if io.stderr not in (None, NONEMPTY) and io.stderr not in got.stderr:
            return CheckResult(False, f"standard error does not say {io.stderr!r}", reason="stderr")
        return CheckResult(True)

    def shown(self, test: Test, result: RunResult, expected: object) -> tuple[str | None, str | None]:
        """Standard output's expected and actual text; a wrong output file's when that is what failed."""
        stdout = test.expect if test.expect is not MISSING else getattr(expected, "stdout", "")
        check = self.check(test, result, expected)
        io = test.io or ProgramIO()
        if not check.passed:
            reference = expected if isinstance(expected, ProgramAnswer) else None
            wanted = {**dict(reference.files if reference else ()), **dict(io.expect_files)}
            for name, text in result.files:
                if check.feedback.startswith(f"{name}: ") and wanted.get(name) is not None and text is not None:
                    return wanted[name], text
        return str(stdout), result.stdout

    def shown_input(self, test: Test) -> str:
        io = test.io or ProgramIO()
        if not io.args and not io.files:
            return test.stdin or ""  # what the program reads, as a plain program test shows it
        lines = [f"args: {' '.join(io.args)}"] if io.args else []
        for name, text in io.files:
            lines.append(f"file {name}:")
            lines += ["  " + line for line in text.rstrip("\n").split("\n")]
        if test.stdin:
            lines.append("stdin:")
            lines += ["  " + line for line in test.stdin.rstrip("\n").split("\n")]
        return "\n".join(lines)

    def shown_expected(self, test: Test, expected: object) -> str:
        io = test.io or ProgramIO()
        reference = expected if isinstance(expected, ProgramAnswer) else None
        stdout = test.expect if test.expect is not MISSING else reference.stdout if reference else "?"
        lines = [str(stdout).rstrip("\n")] if str(stdout).strip() else []
        files = {**dict(reference.files if reference else ()), **dict(io.expect_files)}
        for name in io.output_files:
            text = files.get(name)
            lines.append(f"file {name}:" if text is not None else f"file {name}: not written")
            lines += ["  " + line for line in (text or "").rstrip("\n").split("\n")] if text else []
        status = io.exit_status if io.exit_status is not None else reference.exit_status if reference else 0
        if status:
            lines.append(f"exit status {status}")
        if io.stderr is not None:
            lines.append("standard error: something" if io.stderr == NONEMPTY else f"standard error saying {io.stderr!r}")
        return "\n".join(lines) or "(prints nothing)"

    def spec_entry(self, test: Test, expected: object) -> dict[str, object] | None:
        io = test.io or ProgramIO()
        reference = expected if isinstance(expected, ProgramAnswer) else None
        stdout = test.expect if test.expect is not MISSING else reference.stdout if reference else MISSING
        files = {**dict(reference.files if reference else ()), **dict(io.expect_files)}
        # A file the reference does not write cannot be written out as expected: the bundle leaves it unchecked.
        outputs = [name for name in io.output_files if files.get(name) is not None]
        entry: dict[str, object] = {"args": list(io.args), "files": dict(io.files), "output_files": outputs,
                                    "expect_files": {name: files[name] for name in outputs}}
        status = io.exit_status if io.exit_status is not None else reference.exit_status if reference else None
        if status:
            entry["exit_status"] = status
        if io.stderr is not None:
            entry["stderr"] = io.stderr
        if stdout is not MISSING:
            entry["expect"] = str(stdout)
        return entry

    def confirm(self, test: Test, produced: object) -> str:
        if not isinstance(produced, ProgramAnswer):
            return "the reference gave no program answer"
        check = self._judge(test, produced, produced)  # the written expectations against its own answer
        return "" if check.passed else check.feedback
