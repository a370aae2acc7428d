"""The data a test form keeps on a `Test` (grader.model): plain records, below the model, so that the model
can name them without importing the forms that judge with them (which import the model)."""

from __future__ import annotations

import builtins

from grader.records import record

BUILTIN_ERRORS = frozenset(name for name, value in vars(builtins).items()
                           if isinstance(value, type) and issubclass(value, BaseException))


@record
class ExpectedRaise:
    """`raises:` an exception of this class (a subclass counts unless `subclass` is False) whose message
    contains `message`, is `message_equals` (None: not checked) and matches `match` (None: not checked)."""

    cls: str
    message: str = ""
    message_equals: str | None = None
    first_arg: object = None  # unittest's args[0], any data (None: not checked)
    match: str | None = None
    subclass: bool = True
    bases: tuple[str, ...] = ()  # classes it must derive from too (assertRaises(BufferError) of a student class)

    @property
    def builtin(self) -> bool:
        return self.cls in BUILTIN_ERRORS

    def wanted(self) -> str:
        """How the spec reads: `ValueError('too big')`, `E (exactly that class, a BufferError) with a message
        matching '^x'`."""
        argument = self.first_arg if self.first_arg is not None else self.message_equals
        text = self.cls + (f"({argument!r})" if argument is not None else "")
        kinds = ([] if self.subclass else ["exactly that class"]) + [a_class(base) for base in self.bases]
        text += f" ({', '.join(kinds)})" if kinds else ""
        text += f" with a message containing {self.message!r}" if self.message else ""
        return text + (f" with a message matching {self.match!r}" if self.match is not None else "")


def a_class(name: str) -> str:
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


@record
class Step:
    """One step of a `steps` test: a statement (its value is not compared) or an expression."""

    code: str
    expression: bool
    expect: object = None  # a written value; MISSING: the reference's (only when `written` is False)
    written: bool = False  # `expect_literal` was written
    raises: ExpectedRaise | None = None  # a written expected exception
    equals: str | None = None  # an expression the value must be == to, compared in the sandbox (objects)


@record
class ProgramIO:
    """A program test's command line and files (grader.forms.program_io)."""

    args: tuple[str, ...] = ()
    files: tuple[tuple[str, str], ...] = ()  # written into the working folder before the run
    output_files: tuple[str, ...] = ()  # read back after it and compared
    expect_files: tuple[tuple[str, str], ...] = ()  # written expectations of some of output_files
    exit_status: int | None = None  # None: the reference's, or 0 without one
    stderr: str | None = None  # None: not checked; "nonempty"; or a text stderr must contain
