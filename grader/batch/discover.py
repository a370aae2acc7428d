"""Which file of a student's hand-in answers which exercise: the naming rule, and the class it finds in a
folder (or a zip) laid out as one of the platforms of grader.batch.layouts lays it out."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from grader.batch.layouts import LAYOUTS, HandIn, detect, gradescope_root, settle_names, visible
from grader.batch.unpack import unpack
from grader.errors import UsageError
from grader.handins import NOTEBOOK_SUFFIX, ZIP_SUFFIX
from grader.handins.names import NameRule, extension
from grader.model import Exercise
from grader.records import record

@record
class Found:
    """What a student handed in for one exercise: a file to grade, nothing, or something we refuse to read."""

    student: str
    exercise: str
    path: Path | None  # None when missing (or when the whole hand-in is refused)
    refused: str = ""  # why the file is not graded at all (a folder, a device, a link out of the folder)
    late: bool = False  # the platform marked the hand-in late (Canvas's _LATE_)

    @property
    def label(self) -> str:
        """The name reports show: student/file."""
        return f"{self.student}/{self.path.name}" if self.path else f"{self.student}/-"


@dataclass
class ClassFolder:
    """Every student and, for each, the file found for each exercise."""

    root: Path
    students: list[str]
    found: dict[tuple[str, str], Found]
    stray: list[str] = field(default_factory=list)  # files that answer no exercise, shown as a warning
    duplicates: list[str] = field(default_factory=list)  # second candidates for an exercise, not graded
    layout: str = "folders"
    ids: dict[str, dict[str, str]] = field(default_factory=dict)  # student -> what the platform says of them
    not_walked: list[str] = field(default_factory=list)  # parts of folders left unread, and why

    def handed_in(self) -> set[str]:
        return {key[1] for key, found in self.found.items() if found.path is not None}

    def late(self, student: str) -> list[str]:
        return sorted(e for (s, e), found in self.found.items() if s == student and found.late)


def discover(root: Path, exercises: list[Exercise], rule: NameRule, layout: str = "auto",
             unpack_into: Path | None = None) -> ClassFolder:
    """The class in `root`: a folder, or a zip (unpacked into `unpack_into`), in the given layout or the one
    its platform's marks show."""
    if root.is_file() and root.suffix.lower() == ".zip":
        if unpack_into is None:
            raise UsageError(f"{root} is a zip: there is no folder to unpack it into")
        root, left_out = unpack(root, unpack_into)
    else:
        left_out = []
    if not root.is_dir():
        raise UsageError(f"no submissions folder at {root}")
    if layout == "auto":
        layout = detect(root)
    if layout == "gradescope":
        root = gradescope_root(root) or root
    hand_ins = settle_names(LAYOUTS[layout](root))
    if not hand_ins:
        raise UsageError(f"{root} has no student folders: put each student's files in a folder of their own, "
                         f"e.g. {root}/ada/count-queens.py (or give a Canvas, Moodle, Gradescope or GitHub "
                         f"Classroom download; see --layout)")
    result = ClassFolder(root, [h.student for h in hand_ins], {}, layout=layout,
                         not_walked=[visible(name) for name in left_out])
    if layout in ("folders", "github-classroom", "gradescope"):
        result.stray += [visible(p.name) for p in sorted(root.iterdir())
                         if not p.is_dir() and not p.name.startswith(".")
                         and p.name != "submission_metadata.yml"]
    for hand_in in hand_ins:
        result.ids[hand_in.student] = hand_in.ids
        result.not_walked += hand_in.not_walked
        _match(hand_in, exercises, rule, result)
    return result


def _match(hand_in: HandIn, exercises: list[Exercise], rule: NameRule, result: ClassFolder) -> None:
    student = hand_in.student
    if hand_in.refused:
        for exercise in exercises:
            result.found[(student, exercise.id)] = Found(student, exercise.id, None, hand_in.refused)
        return
    # (folder?, depth, -revision, rank, path) for each candidate of each exercise: a file before a folder of
    # the same name (refused), then the shallowest, then the latest resubmission, then the best name.
    candidates: dict[str, list[tuple[bool, int, int, int, str, int]]] = {}
    unmatched: list[Path] = []
    for position, candidate in enumerate(hand_in.files):
        matches = [(exercise, rank + looseness) for looseness, name in enumerate(candidate.names) for exercise in exercises
                   if (rank := rule.rank(_named_as_file(candidate.path, name, exercise), exercise)) is not None]
        if not matches:
            if not candidate.path.is_dir():
                unmatched.append(candidate.path)
            continue
        # A name that fits several exercises (n_queens_ii.py fits *{id}* of n-queens too) goes to the
        # exercise it names most completely: the best rank, then the longest id.
        exercise, rank = min(matches, key=lambda m: (m[1], -len(m[0].id)))
        candidates.setdefault(exercise.id, []).append(
            (candidate.path.is_dir(), candidate.depth, -candidate.revision, rank, str(candidate.path), position))
    for exercise in exercises:
        ranked = sorted(candidates.get(exercise.id, []))
        folders = [Path(path) for is_dir, _, _, _, path, _ in ranked
                   if is_dir and not path.endswith(f".{extension(exercise)}")]
        # A folder named for the exercise is the hand-in, its own files included (helpers and all); one named
        # like a file (count-queens.py/, a zip unpacked in place) holds the file, which is then the hand-in.
        ranked = [c for c in ranked if not any(Path(c[4]).is_relative_to(f) and Path(c[4]) != f for f in folders)]
        if not ranked:
            result.found[(student, exercise.id)] = Found(student, exercise.id, None)
            continue
        chosen = hand_in.files[ranked[0][-1]]
        result.duplicates += [
            visible(f"{_shown(student, hand_in.files[other].path, hand_in)} (graded {chosen.path.name} for "
                    f"{exercise.id})") for *_, other in ranked[1:]]
        result.found[(student, exercise.id)] = Found(student, exercise.id, chosen.path,
                                                     refused_because(chosen.path, hand_in.boundary), chosen.late)
    handed_in_folders = [found.path for (who, _), found in result.found.items()
                         if who == student and found.path is not None and found.path.is_dir()]
    result.stray += [visible(_shown(student, path, hand_in)) for path in unmatched  # a folder hand-in's own files
                     if not any(path.is_relative_to(folder) for folder in handed_in_folders)]


HANDIN_SUFFIXES = (ZIP_SUFFIX, NOTEBOOK_SUFFIX)  # besides a folder: the other forms of grader/handins/


def _named_as_file(path: Path, name: str, exercise: Exercise) -> str:
    """A folder, zip or notebook is matched by the name its answer file would have: count-queens/,
    count-queens.zip and count-queens.ipynb answer what count-queens.py answers."""
    stem, dot, suffix = name.rpartition(".")
    if dot and f".{suffix.lower()}" in HANDIN_SUFFIXES:
        return f"{stem}.{extension(exercise)}"
    if path.is_dir() and not path.is_symlink() and not name.endswith(f".{extension(exercise)}"):
        return f"{name}.{extension(exercise)}"
    return name


def _shown(student: str, path: Path, hand_in: HandIn) -> str:
    if hand_in.boundary is not None and path.is_relative_to(hand_in.boundary):
        return f"{student}/{path.relative_to(hand_in.boundary)}"
    return f"{student}/{path.name}"


def refused_because(path: Path, folder: Path | None) -> str:
    """Why a candidate is not read at all: reading a FIFO blocks, and a link may point at anyone's files.
    `folder` is where a link may point; None: a download that never holds links, so no link is followed."""
    try:
        if path.is_symlink():
            if folder is None:
                return "the file is a symbolic link, which this download never holds; it is not read"
            # realpath, not Path.resolve(): on a link loop Python 3.11's resolve() raises RuntimeError.
            target = Path(os.path.realpath(path))
            if not target.is_relative_to(os.path.realpath(folder)):
                return "the file is a symbolic link to outside the student's folder; it is not read"
        mode = os.stat(path).st_mode
    except OSError as error:
        return f"cannot read the file: {error.strerror}"
    except (RuntimeError, ValueError) as error:  # a link loop on some versions, a NUL byte
        return f"cannot read the file: {error}"
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder is read as a hand-in of several files
        return "this is not a regular file (a device, a pipe or a socket); it is not read"
    return ""
