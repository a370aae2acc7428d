"""The interface every submission kind implements, with the behaviour most kinds share."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.forms import form_of
from grader.model import Compare, Exercise, Outcome, RunResult, Test
from grader.spec_reader import SpecReader

if TYPE_CHECKING:
    import yaml


class SubmissionKind:
    """A kind of hand-in. Subclasses set the attributes and override what differs."""

    name: str = ""
    suffix: str = ".py"  # what a hand-in's file name ends with
    default_compare: Compare = "output"
    compares: tuple[Compare, ...] = ("output",)  # what a test may compare
    runs_code: bool = True  # the hand-in is code run in the sandbox; False: its text is judged as it is
    harness_mode: str = "script"  # what the harness does in the child: "module" (load once, call) or "script"
    returns: bool = False  # a test ends by returning from a call: leaving early (sys.exit) is no answer
    starter_lexer: str = "python"  # how `grader show` highlights the starter code
    lists_tests: bool = True  # `grader show` lists the visible tests
    own_keys: tuple[str, ...] = ()  # exercise keys that only this kind takes
    scaffold_forms: tuple[str, ...] = ("plain",)  # the shapes `grader new --form` writes for this kind

    # ------------------------------------------------------------ the spec
    def check_exercise(self, reader: SpecReader, keys: dict[str, yaml.Node], root: yaml.Node,
                       entry: str | None) -> None:
        """Report the exercise-level keys this kind needs or refuses."""
        if entry is not None and entry.isidentifier():  # a bad name is reported as such
            reader.problem(keys["entry"], f"'entry' is for function exercises; a {self.name} exercise has none")
        for key in ("prelude", "test_setup"):
            if key in keys:  # it would be accepted and never run
                reader.problem(keys[key], f"'{key}' is for function exercises; a {self.name} exercise runs none")

    def test_input(self, reader: SpecReader, keys: dict[str, yaml.Node], node: yaml.Node,
                   where: str) -> tuple[str | None, str | None]:
        """(call, stdin) of one test, reporting keys this kind does not take."""
        if "call" in keys:
            reader.problem(keys["call"], f"'call' is for function exercises; this is a {self.name} exercise")
        if "stdin" in keys:
            reader.problem(keys["stdin"], f"'stdin' is for program exercises; this is a {self.name} exercise")
        return None, None

    def compare_problem(self, compare: str) -> str:
        """Why a test may not compare this (a written `compare` this kind refuses)."""
        return f"a {self.name} exercise compares output; 'compare: value' is for function tests"

    # ------------------------------------------------------------ expected answers
    def truth(self, exercise: Exercise) -> tuple[str | Path, Exercise] | None:
        """What produces the expected answers, and the exercise as it must be run for them: code, or a
        hand-in to read as a student's is (by default the primary reference: accepted/plain, else the first)."""
        if exercise.reference_text:  # a variant's (grader.variants): the reference rendered for it
            return exercise.reference_text, exercise
        reference = primary_reference(exercise)
        return (reference, exercise) if reference else None

    def unwritten(self, exercise: Exercise) -> list[Test]:
        """The tests whose expected answers the source of truth must produce."""
        return [test for test in exercise.tests if form_of(test).needs_reference(test)]

    truth_label: str = "the reference"  # how messages name the source of truth
    expect_label: str = "the written expect"

    # ------------------------------------------------------------ judging
    def judged_here(self, source: str) -> RunResult:
        """What a hand-in that is not run (runs_code False) gives to its checker."""
        raise NotImplementedError(f"a {self.name} hand-in is run in the sandbox")

    def review(self, exercise: Exercise, outcome: Outcome, answer: str, expected: object,
               attempt: int | None) -> Outcome:
        """A judged hand-in that is not run, as the student is shown it (`attempt`: which check of it this
        is, counted by `grader check`; None elsewhere)."""
        return outcome

    def calibrated(self, exercise: Exercise) -> bool:
        """Whether its tests' CPU limits are timed on the accepted references."""
        return self.runs_code

    # ------------------------------------------------------------ authoring
    def scaffold(self, entry: str, form: str = "plain") -> tuple[str, dict[str, str]]:
        """`grader new`: the spec's text and the reference files (path under reference/<id>/ -> text), shaped
        for `form` (one of its scaffold_forms)."""
        raise NotImplementedError

    def shown_code(self, exercise: Exercise) -> str:
        """Code `grader show` prints besides the starter (the predict snippet)."""
        return ""

    def exported_expectations(self, exercise: Exercise) -> bool:
        """Whether a student bundle writes its expected answers out (it has no reference to compute them)."""
        return True


def accepted_references(exercise: Exercise) -> list[Path]:
    """The accepted references: plain files by name, then notebooks, zips and folders by name (handed in
    as students hand them in)."""
    folder = exercise.reference_dir / "accepted"
    if not folder.is_dir():
        return []
    entries = [path for path in sorted(folder.iterdir()) if not path.name.startswith((".", "__"))]
    files = [path for path in entries if path.is_file() and path.suffix == ".py"]
    return files + [path for path in entries if path.is_dir() or path.suffix.lower() in (".ipynb", ".zip")]


PRIMARY = "plain"  # the accepted reference whose answers are the expected ones, when there is one


def primary_reference(exercise: Exercise) -> Path | None:
    """The reference whose answers are the expected ones: accepted/plain (plain.py, a plain/ folder,
    plain.ipynb: the one `grader new` presents first), else the first accepted reference by name (a plain
    file before any other form)."""
    references = accepted_references(exercise)
    named = [path for path in references if path.stem == PRIMARY]
    return (named or references or [None])[0]


def as_program(exercise: Exercise, source_test: Test) -> Exercise:
    """The exercise run as a program with one test: how a text kind's code produces its answer."""
    return replace(exercise, kind="program", tests=(replace(source_test, call=None, stdin="", compare="output"),))
