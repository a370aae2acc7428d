"""What a hand-in becomes once read, whatever its form: the entry module's text, the other modules it may
import, and notes for the report. Plain data, so a batch sends it to a worker as it is."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.kinds import kind_of
from grader.model import Exercise, Report, Verdict
from grader.records import record

if TYPE_CHECKING:
    from grader.handins.names import NameRule

SOURCE_NAME = "submission.py"  # what the sandbox's harness calls the entry module in its tracebacks


@record
class Cell:
    """Where one notebook code cell's lines are in the module the notebook runs as."""

    number: int  # 1-based among all the notebook's cells, markdown included, as the notebook shows them
    first_line: int  # of the module, 1-based
    lines: int


@record
class Module:
    """A module of the hand-in besides its entry, importable by `name` inside the sandbox."""

    name: str  # dotted import name: helpers, pkg, pkg.tools
    path: str  # the file as the student named it (helpers.py, pkg/__init__.py), for tracebacks
    source: str
    package: bool = False  # an __init__.py: its submodules import through it


@record
class Handin:
    """A readable hand-in (`refused` empty) or why it is not graded (`refused`, with the verdict it gets)."""

    source: str = ""
    modules: tuple[Module, ...] = ()
    notes: tuple[str, ...] = ()  # said in the report: magics that were not run, which file was the entry
    cells: tuple[Cell, ...] = ()  # a notebook's code cells; empty for a plain file
    shown_name: str = SOURCE_NAME  # what tracebacks call the entry: submission.py, or the notebook's name
    refused: str = ""
    refused_verdict: Verdict = Verdict.RUNTIME_ERROR
    form: str = "file"

    @property
    def ok(self) -> bool:
        return not self.refused

    def digest(self) -> str:
        """Equal for hand-ins that grade the same: the key a batch stores the grading under."""
        import hashlib  # a batch's store only: a check never needs OpenSSL's load

        digest = hashlib.sha256()
        if self.refused:
            digest.update(f"refused\0{self.refused_verdict}\0{self.refused}".encode())
            return digest.hexdigest()
        if not self.modules and not self.cells and not self.notes:
            return hashlib.sha256(self.source.encode("utf-8", "surrogatepass")).hexdigest()  # as before: one file
        for part in (self.form, self.source, *self.notes, self.shown_name):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        for module in sorted(self.modules, key=lambda m: m.name):
            digest.update(f"{module.name}\0{module.path}\0{int(module.package)}\0".encode())
            digest.update(module.source.encode("utf-8", "surrogatepass") + b"\0")
        for cell in self.cells:
            digest.update(f"{cell.number},{cell.first_line},{cell.lines}\0".encode())
        return digest.hexdigest()

    # ------------------------------------------------------------ positions as the student knows them
    def where(self, line: int) -> str:
        """'line 7', or 'cell 3, line 2' in a notebook."""
        for cell in self.cells:
            if cell.first_line <= line < cell.first_line + cell.lines:
                return f"cell {cell.number}, line {line - cell.first_line + 1}"
        return f"line {line}"

    def relocated(self, text: str) -> str:
        """A traceback or message with the module's line numbers turned into the notebook's cells."""
        if not self.cells or not text:
            return text
        def frame(match: re.Match[str]) -> str:
            return f'File "{self.shown_name}", {self.where(int(match.group(1)))}'
        # The harness names the entry by the student's file already, or as submission.py.
        names = "|".join(re.escape(name) for name in {SOURCE_NAME, self.shown_name})
        return re.sub(r'File "(?:' + names + r')", line (\d+)', frame, text)

    def annotate(self, report: Report) -> Report:
        """The report with positions in the student's own terms and the hand-in's notes."""
        if self.cells:
            outcomes = tuple(replace(o, feedback=self.relocated(o.feedback), details=self.relocated(o.details))
                             for o in report.outcomes)
            staff = tuple(replace(d, traceback=self.relocated(d.traceback)) for d in report.staff)
            report = replace(report, outcomes=outcomes, staff=staff)
        return replace(report, notes=report.notes + self.notes) if self.notes else report


def refuse(why: str, verdict: Verdict = Verdict.RUNTIME_ERROR, form: str = "file") -> Handin:
    return Handin(refused=why, refused_verdict=verdict, form=form)


@record
class Context:
    """What reading a hand-in needs to know: the exercise it answers and how entry files are named."""

    exercise: Exercise
    rule: NameRule | None = None  # None: the batch's default rule, made when a folder or zip needs it
    helpers: tuple[Path, ...] = ()  # batch: the other .py files of the student's folder, to import

    @property
    def suffix(self) -> str:
        """What the entry file's name ends with: .py, or .txt for a predict exercise."""
        return kind_of(self.exercise.kind).suffix

    @property
    def runs_as_module(self) -> bool:
        """A function exercise: the entry is loaded once and the tests call its names."""
        return kind_of(self.exercise.kind).harness_mode == "module"

    @property
    def runs_code(self) -> bool:
        return kind_of(self.exercise.kind).runs_code

    def is_entry_name(self, name: str) -> bool:
        rule = self.rule if self.rule is not None else _default_rule()
        return rule.rank(name, self.exercise) is not None


def _default_rule() -> NameRule:
    # The batch's matching rules, imported when a rule is needed: a single-file check needs none of the
    # batch's layouts (zip and download readers) at start-up.
    from grader.handins.names import NameRule

    return NameRule()
