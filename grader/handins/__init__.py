"""What a student hands in, in whatever form, read into one `Handin`: a file, a notebook, a folder or a
zip. A new form is one module with a class that `accepts` a path and `read`s it, plus one line in FORMS;
the first form that accepts a path reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from grader.handins.base import Context, Handin, Module
from grader.handins.file import FileForm
from grader.handins.folder import FolderForm
from grader.handins.notebook import NotebookForm
from grader.model import Exercise


class HandinForm(Protocol):
    name: str

    def accepts(self, path: Path) -> bool: ...

    def read(self, path: Path, context: Context) -> Handin: ...


class _Zip:
    """The zip form, imported when a .zip is handed in: its reader needs zipfile and the batch's layouts."""

    name = "zip"

    def accepts(self, path: Path) -> bool:
        return path.suffix.lower() == ".zip" and not path.is_dir()

    def read(self, path: Path, context: Context) -> Handin:
        from grader.handins.archive import ZipForm

        return ZipForm().read(path, context)


FORMS: tuple[HandinForm, ...] = (
    FolderForm(),
    _Zip(),
    NotebookForm(),
    FileForm(),  # last: it accepts anything
)


def read_handin(path: Path, exercise: Exercise, *, context: Context | None = None) -> Handin:
    """The hand-in at `path` for `exercise`, read by the first form that accepts it."""
    context = context or Context(exercise)
    form = next(form for form in FORMS if form.accepts(path))
    return form.read(path, context)


__all__ = ["FORMS", "Context", "Handin", "HandinForm", "Module", "read_handin"]
