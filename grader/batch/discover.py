"""Which file of a student's folder answers which exercise: the naming rule, and the class it finds."""

from __future__ import annotations

import functools
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import UsageError
from grader.kinds import kind_of
from grader.model import Exercise

DEFAULT_TEMPLATES = ("{id}.{ext}",)
# Folders that archive tools and editors leave beside real student folders.
IGNORED_FOLDERS = {"__MACOSX", "__pycache__"}


def extension(exercise: Exercise) -> str:
    return kind_of(exercise.kind).suffix.lstrip(".")


@dataclass(frozen=True)
class NameRule:
    """File-name templates: `{id}` is the exercise id, matched loosely (case, and `-`, `_`, `.` or spaces
    between its words, do not matter: `count_queens`, `Count Queens`, `countqueens`); `{ext}` is `py`, or
    `txt` for a predict exercise; `*` and `?` are glob wildcards. `<id>.<ext>` is always recognised."""

    templates: tuple[str, ...] = DEFAULT_TEMPLATES

    def __post_init__(self) -> None:
        for template in self.templates:
            if "{id}" not in template:
                raise UsageError(f"the name template {template!r} has no {{id}} (e.g. 'hw3_{{id}}.{{ext}}')")

    def rank(self, file_name: str, exercise: Exercise) -> int | None:
        """0 for the exact name, 1 + the template's position for a template match, None for no match."""
        if file_name == f"{exercise.id}.{extension(exercise)}":
            return 0
        for position, template in enumerate(self.templates):
            if _template_regex(template, exercise).fullmatch(file_name):
                return position + 1
        return None


def _template_regex(template: str, exercise: Exercise) -> re.Pattern[str]:
    return _compiled(template, exercise.id, extension(exercise))


@functools.lru_cache(maxsize=4096)
def _compiled(template: str, exercise_id: str, ext: str) -> re.Pattern[str]:
    words = [w for w in re.split(r"[-_. ]+", exercise_id) if w]
    loose_id = r"[-_. ]*".join(re.escape(word) for word in words)
    pattern = ""
    for piece in re.split(r"(\{id\}|\{ext\}|\*|\?)", template):
        pattern += {"{id}": loose_id, "{ext}": re.escape(ext), "*": ".*", "?": "."}.get(
            piece, re.escape(piece))
    return re.compile(pattern, re.IGNORECASE)


@dataclass(frozen=True)
class Found:
    """What a student handed in for one exercise: a file to grade, nothing, or something we refuse to read."""

    student: str
    exercise: str
    path: Path | None  # None when missing
    refused: str = ""  # why the file is not graded at all (a folder, a device, a link out of the folder)

    @property
    def label(self) -> str:
        """The name reports show: student/file."""
        return f"{self.student}/{self.path.name}" if self.path else f"{self.student}/-"


@dataclass
class ClassFolder:
    """Every student folder and, for each, the file found for each exercise."""

    root: Path
    students: list[str]
    found: dict[tuple[str, str], Found]
    stray: list[str] = field(default_factory=list)  # files that answer no exercise, shown as a warning
    duplicates: list[str] = field(default_factory=list)  # second candidates for an exercise, not graded

    def handed_in(self) -> set[str]:
        return {key[1] for key, found in self.found.items() if found.path is not None}


def discover(root: Path, exercises: list[Exercise], rule: NameRule) -> ClassFolder:
    """One sub-folder per student; in each, the files directly inside it (not in sub-folders)."""
    if not root.is_dir():
        raise UsageError(f"no submissions folder at {root}")
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
                     and p.name not in IGNORED_FOLDERS)
    if not folders:
        raise UsageError(f"{root} has no student folders: put each student's files in a folder of their own, "
                         f"e.g. {root}/ada/count-queens.py")
    result = ClassFolder(root, [p.name for p in folders], {})
    result.stray += [p.name for p in sorted(root.iterdir()) if not p.is_dir() and not p.name.startswith(".")]
    for folder in folders:
        _match_folder(folder, exercises, rule, result)
    return result


def _match_folder(folder: Path, exercises: list[Exercise], rule: NameRule, result: ClassFolder) -> None:
    student = folder.name
    candidates: dict[str, list[tuple[int, str]]] = {}
    for entry in sorted(os.listdir(folder)):
        if entry.startswith(".") or entry in IGNORED_FOLDERS:
            continue
        matches = [(exercise, rank) for exercise in exercises
                   if (rank := rule.rank(_named_as_file(folder / entry, exercise), exercise)) is not None]
        if not matches:
            if (folder / entry).is_file():
                result.stray.append(f"{student}/{entry}")
            continue
        # A name that fits several exercises (n_queens_ii.py fits *{id}* of n-queens too) goes to the
        # exercise it names most completely: the best rank, then the longest id.
        exercise, rank = min(matches, key=lambda m: (m[1], -len(m[0].id)))
        candidates.setdefault(exercise.id, []).append((rank, entry))
    for exercise in exercises:
        ranked = sorted(candidates.get(exercise.id, []))
        if not ranked:
            result.found[(student, exercise.id)] = Found(student, exercise.id, None)
            continue
        chosen = folder / ranked[0][1]
        result.duplicates += [f"{student}/{name} (graded {chosen.name} for {exercise.id})" for _, name in ranked[1:]]
        result.found[(student, exercise.id)] = Found(student, exercise.id, chosen, refused_because(chosen, folder))


HANDIN_SUFFIXES = (".zip", ".ipynb")  # besides a folder: the other forms of grader/handins/


def _named_as_file(path: Path, exercise: Exercise) -> str:
    """A folder, zip or notebook is matched by the name its answer file would have: count-queens/,
    count-queens.zip and count-queens.ipynb answer what count-queens.py answers."""
    if path.suffix.lower() in HANDIN_SUFFIXES:
        return f"{path.stem}.{extension(exercise)}"
    if path.is_dir() and not path.is_symlink() and not path.name.endswith(f".{extension(exercise)}"):
        return f"{path.name}.{extension(exercise)}"
    return path.name


def refused_because(path: Path, folder: Path) -> str:
    """Why a candidate is not read at all: reading a FIFO blocks, and a link may point at anyone's files."""
    try:
        if path.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(folder.resolve()):
                return "the file is a symbolic link to outside the student's folder; it is not read"
        mode = os.stat(path).st_mode
    except OSError as error:
        return f"cannot read the file: {error.strerror}"
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder is read as a hand-in of several files
        return "this is not a regular file (a device, a pipe or a socket); it is not read"
    return ""
