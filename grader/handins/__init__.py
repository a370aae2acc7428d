"""What a student hands in, in whatever form, read into one `Handin`: a file, a notebook, a folder or a
zip. A new form is one module with a class that `read`s a path, plus one line in FORMS (a grader.registry)
saying which paths are its own (the class's `accepts`, or the line's); the first form that accepts a path
reads it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from grader.handins.base import Context, Handin, Module, refuse
from grader.handins.file import FileForm
from grader.model import Exercise
from grader.registry import Registry, load

ZIP_SUFFIX = ".zip"
NOTEBOOK_SUFFIX = ".ipynb"


class HandinForm(Protocol):
    name: str

    def read(self, path: Path, context: Context) -> Handin: ...


class ListedForm(HandinForm, Protocol):
    """A form as FORMS lists it: it says which paths are its own."""

    def accepts(self, path: Path) -> bool: ...


class _OnUse:
    """A form whose module is imported when a path of its kind is handed in: a check of one file needs
    neither the folder walker, the zip reader (zipfile and the batch's layouts) nor the notebook reader."""

    def __init__(self, name: str, where: str, accepts: Callable[[Path], bool]) -> None:
        self.name, self._where, self._accepts = name, where, accepts

    def accepts(self, path: Path) -> bool:
        return self._accepts(path)

    def read(self, path: Path, context: Context) -> Handin:
        form: HandinForm = load(self._where)()  # type: ignore[operator]
        return form.read(path, context)


# In the order they are asked: the first form that accepts a path reads it.
FORMS: Registry[ListedForm] = Registry({
    "folder": _OnUse("folder", "grader.handins.folder:FolderForm", Path.is_dir),
    "zip": _OnUse("zip", "grader.handins.archive:ZipForm",
                  lambda path: path.suffix.lower() == ZIP_SUFFIX and not path.is_dir()),
    "notebook": _OnUse("notebook", "grader.handins.notebook:NotebookForm",
                       lambda path: path.suffix.lower() == NOTEBOOK_SUFFIX and not path.is_dir()),
    "file": FileForm(),  # last: it accepts anything
}, what="hand-in form")


def read_handin(path: Path, exercise: Exercise, *, context: Context | None = None) -> Handin:
    """The hand-in at `path` for `exercise`, read by the first form that accepts it."""
    context = context or Context(exercise)
    try:
        form = next(form for form in FORMS.values() if form.accepts(path))
        handin = form.read(path, context)
    except Exception as error:  # noqa: BLE001 - whatever a hand-in makes a reader do is that student's verdict
        # Each reader bounds what it reads and refuses with the reason; this is the net under them all
        # (a RecursionError, a MemoryError, an OSError on a strange path), so no hand-in ends a batch.
        return refuse(f"the hand-in cannot be read: {type(error).__name__}")
    return _with_required_files(handin, exercise) if exercise.handin_files and handin.ok else handin


def _with_required_files(handin: Handin, exercise: Exercise) -> Handin:
    """Refused when the spec's `handin_files` are not all beside the entry file (a single file never has them)."""
    present = {module.path for module in handin.modules}
    missing = [name for name in exercise.handin_files if name not in present]
    if not missing:
        return handin
    how = "" if handin.form != "file" else "; hand in a folder (or a zip) holding them and the exercise's file"
    return refuse(f"the hand-in lacks {', '.join(missing)}: this exercise is {', '.join(exercise.handin_files)} "
                  f"beside {exercise.id}.py{how}", form=handin.form)


__all__ = ["FORMS", "Context", "Handin", "HandinForm", "Module", "read_handin"]
