"""How each platform lays a class's hand-ins out on disk, read into one shape: per student, the files that may
answer an exercise. A new layout is one function here plus a line in LAYOUTS (and one in `detect`)."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import UsageError
from grader.text import escape_controls, text_of_name
from grader.records import record
from grader.registry import Registry

# Folders that archive tools, editors and version control leave beside (or inside) real student folders.
IGNORED_FOLDERS = {"__MACOSX", "__pycache__", "node_modules", "venv"}
# How far into a student's own folder files are looked for, and how many entries at most: a deeper or bigger
# folder is reported, not walked on.
MAX_DEPTH = 6
MAX_ENTRIES = 2000

# Canvas "Download Submissions" (canvas-lms lib/content_zipper.rb): <sortable name, lower-cased, `_` kept>
# [_LATE, `_late` before 2018]_<user id, or anon_<anonymous id> with no name when grading is anonymous>
# _<attachment id>_<the student's file name>.
CANVAS_FILE = re.compile(r"(?:(?P<login>[^/]+?)_)??(?:(?P<late>(?i:late))_)?"
                         r"(?:anon_(?P<anonymous>[A-Za-z0-9]+)|(?P<user>\d+))_(?P<attachment>\d+)_(?P<file>[^/]+)")
# Canvas renames a resubmitted file name.py to name-1.py, name-2.py...: the highest number is the latest.
CANVAS_RESUBMITTED = re.compile(r"(?P<stem>.+)-(?P<revision>\d+)(?P<suffix>\.[^.]+)")
# Moodle "Download all submissions": <full name>_<participant id>_assignsubmission_<plugin>_ (a folder each),
# or the same prefix on every file when the download is not in folders.
MOODLE_NAME = re.compile(r"(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)")
# Gradescope's "Export Submissions": submission_metadata.yml beside one submission_<id>/ folder each.
GRADESCOPE_METADATA = "submission_metadata.yml"


@record
class Candidate:
    """A file (or something in the file's place) that may answer an exercise."""

    path: Path
    names: tuple[str, ...]  # the name to match, then looser forms of it (a platform's renaming undone)
    depth: int = 0  # folders between the student's folder and the file
    late: bool = False
    revision: int = 0  # a platform's resubmission number (Canvas's name-1.py): the highest is graded


@dataclass
class HandIn:
    """One student's hand-in as a platform shaped it."""

    student: str
    files: list[Candidate] = field(default_factory=list)
    boundary: Path | None = None  # a link may point inside this folder; None: no link is followed at all
    ids: dict[str, str] = field(default_factory=dict)  # what the platform says of the student: id, email...
    refused: str = ""  # why nothing of this student is read (a folder that is a link)
    not_walked: list[str] = field(default_factory=list)  # parts of the folder left unread, and why


def visible(text: str) -> str:
    return escape_controls(text)


def browser_copy(name: str) -> str:
    """`count-queens (1).py`, as a browser saves a second download, read as `count-queens.py`."""
    return re.sub(r" \(\d+\)(?=\.[^.]*$|$)", "", name)


def loose_names(name: str) -> tuple[str, ...]:
    names = [name]
    if (copy := browser_copy(name)) != name:
        names.append(copy)
    return tuple(names)


def _hidden(name: str) -> bool:
    return name.startswith(".") or name in IGNORED_FOLDERS


# ---------------------------------------------------------------- one folder per student
def walk(folder: Path, hand_in: HandIn) -> None:
    """Every file of the student's folder and its sub-folders (links to folders are not followed)."""
    seen = 0
    for top, folders, files in os.walk(folder, onerror=lambda error: hand_in.not_walked.append(
            f"{visible(hand_in.student)}/{visible(os.path.relpath(error.filename, folder))} "
            f"({error.strerror})")):
        depth = len(Path(top).relative_to(folder).parts)
        folders[:] = sorted(f for f in folders if not _hidden(f))
        for name in sorted(folders) + sorted(files):
            if _hidden(name):
                continue
            seen += 1
            if seen > MAX_ENTRIES:
                hand_in.not_walked.append(f"{visible(hand_in.student)}/: more than {MAX_ENTRIES} entries; "
                                          f"the rest is not read")
                return
            path = Path(top) / name
            hand_in.files.append(Candidate(path, loose_names(name), depth))
        if depth >= MAX_DEPTH and folders:
            hand_in.not_walked += [f"{visible(hand_in.student)}/{visible(str(Path(top, f).relative_to(folder)))}/"
                                   f" (deeper than {MAX_DEPTH} folders)" for f in folders]
            folders[:] = []


def student_folders(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if not _hidden(p.name) and p.is_dir())  # links to folders too


def _folder_hand_in(student: str, folder: Path, **ids: str) -> HandIn:
    hand_in = HandIn(student, boundary=folder, ids=dict(ids))
    if folder.is_symlink():
        hand_in.refused = "the student's folder is a symbolic link; it is not followed"
    elif folder.is_dir():
        walk(folder, hand_in)
    return hand_in


def one_folder_each(root: Path) -> list[HandIn]:
    return [_folder_hand_in(folder.name, folder) for folder in student_folders(root)]


def github_classroom(root: Path) -> list[HandIn]:
    """`<assignment>-<login>/` repositories, as GitHub Classroom names them: the student is the login."""
    folders = student_folders(root)
    prefix = os.path.commonprefix([f.name for f in folders])
    prefix = prefix[:prefix.rfind("-") + 1] if len(folders) > 1 else ""
    return [_folder_hand_in(folder.name[len(prefix):] or folder.name, folder, login=folder.name[len(prefix):])
            for folder in folders]


# ---------------------------------------------------------------- flat downloads (Canvas, Moodle)
def canvas(root: Path) -> list[HandIn]:
    """Flat files, one prefix per student: by user id, or by anonymous id when grading is anonymous (the
    student is then `anon_<id>`, and a roster's `participant` column tells who it is)."""
    people: dict[str, HandIn] = {}
    for path in sorted(root.iterdir()):
        match = CANVAS_FILE.fullmatch(path.name)
        if _hidden(path.name) or not match or path.is_dir():
            continue
        if match["anonymous"]:
            key, ids = f"anon_{match['anonymous']}", {"participant": match["anonymous"]}
        else:
            key, ids = match["user"], {"id": match["user"]}
        hand_in = people.setdefault(key, HandIn(match["login"] or key, ids=ids))
        name = match["file"]
        names, revision = list(loose_names(name)), 0
        if resubmitted := CANVAS_RESUBMITTED.fullmatch(name):
            names.append(resubmitted["stem"] + resubmitted["suffix"])
            revision = int(resubmitted["revision"])
        hand_in.files.append(Candidate(path, tuple(names), late=bool(match["late"]), revision=revision))
    return list(people.values())  # names made distinct once, for every layout: settle_names


def moodle(root: Path) -> list[HandIn]:
    people: dict[str, HandIn] = {}
    for path in sorted(root.iterdir()):
        match = MOODLE_NAME.fullmatch(path.name)
        if _hidden(path.name) or not match:
            continue
        # The number is the assignment's participant id (assign_user_mapping), not the user id.
        hand_in = people.setdefault(match["id"], HandIn(match["name"], boundary=root,
                                                        ids={"participant": match["id"]}))
        if match["file"]:  # not in folders: the prefix is on the file itself
            hand_in.files.append(Candidate(path, loose_names(match["file"])))
        elif path.is_symlink():
            hand_in.refused = "the student's folder is a symbolic link; it is not followed"
        elif path.is_dir():
            own = HandIn(hand_in.student, boundary=path)
            walk(path, own)
            hand_in.files += own.files
            hand_in.not_walked += own.not_walked
    return list(people.values())


# ---------------------------------------------------------------- Gradescope
def gradescope(root: Path) -> list[HandIn]:
    """Every submitter of each submission_<id>/ folder that submission_metadata.yml lists (a group's members
    each get the group's files)."""
    import yaml  # here: the CLI builds its parser from this module, and most commands never need yaml

    metadata_path = root / GRADESCOPE_METADATA
    try:
        metadata = yaml.safe_load(metadata_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise UsageError(f"{metadata_path}{where}: cannot read Gradescope's submission metadata: {error}") from None
    if not isinstance(metadata, dict):
        raise UsageError(f"{metadata_path}: expected a mapping of submission folders to their submitters")
    people: list[HandIn] = []
    for folder_name, record in sorted(metadata.items(), key=lambda item: str(item[0])):
        submitters = record.get(":submitters") if isinstance(record, dict) else None
        if not isinstance(submitters, list) or not submitters:
            raise UsageError(f"{metadata_path}: {visible(str(folder_name))} lists no :submitters")
        for submitter in submitters:
            submitter = submitter if isinstance(submitter, dict) else {}
            ids = {key: str(submitter[f":{field_}"]) for key, field_ in (("email", "email"), ("sis_id", "sid"))
                   if submitter.get(f":{field_}") not in (None, "")}
            name = str(submitter.get(":name") or folder_name)
            if own_folder(str(folder_name)):
                people.append(_folder_hand_in(name, root / str(folder_name), submission=str(folder_name), **ids))
            else:
                people.append(HandIn(name, ids={"submission": str(folder_name), **ids}, refused=OUTSIDE))
    return people


# The metadata names each submission's folder: only a folder of the export itself is read, so no entry
# points a student's files at another's, or at the grader's own (a path with / or .., or absolute).
OUTSIDE = "the platform's metadata names a submission folder outside the download; it is not read"


def own_folder(name: str) -> bool:
    """A plain name of one entry of the download's own folder: no separator, no '..', no NUL."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def gradescope_root(root: Path) -> Path | None:
    """The export's folder: the given one, or the single folder inside it (`assignment_<id>_export/`)."""
    if (root / GRADESCOPE_METADATA).is_file():
        return root
    inner = [p for p in root.iterdir() if p.is_dir() and not _hidden(p.name)]
    if len(inner) == 1 and (inner[0] / GRADESCOPE_METADATA).is_file():
        return inner[0]
    return None


def settle_names(people: list[HandIn]) -> list[HandIn]:
    """Every student's name made safe and unique, once, before anything shows or stores it: a byte that is
    no UTF-8 and every control or bidirectional character written as its escape; two students of one name
    (two Canvas `smithbob`s, two Gradescope `Ada`s) told apart by their platform id, then by a number."""
    for hand_in in people:
        shown = visible(text_of_name(hand_in.student))
        hand_in.student = shown.replace("\t", "\\x09").replace("\n", "\\x0a") or "_"  # a name is one line
    counts = Counter(hand_in.student for hand_in in people)
    for hand_in in people:
        if counts[hand_in.student] > 1:
            tag = (hand_in.ids.get("id") or hand_in.ids.get("participant") or hand_in.ids.get("sis_id")
                   or hand_in.ids.get("email") or "")
            hand_in.student = f"{hand_in.student}_{visible(tag)}" if tag else hand_in.student
    taken: set[str] = set()
    counts = Counter(hand_in.student for hand_in in people)
    for hand_in in people:
        name, number = hand_in.student, 1
        while name in taken or (number > 1 and counts[name]):
            number += 1
            name = f"{hand_in.student} ({number})"
        taken.add(name)
        hand_in.student = name
    return people


# ---------------------------------------------------------------- which layout
LAYOUTS: Registry[Callable[[Path], list[HandIn]]] = Registry({
    "folders": one_folder_each,
    "canvas": canvas,
    "moodle": moodle,
    "gradescope": gradescope,
    "github-classroom": github_classroom,
}, what="batch layout")


def detect(root: Path) -> str:
    """The layout a download has, by the marks each platform leaves."""
    if gradescope_root(root):
        return "gradescope"
    names = [p.name for p in root.iterdir() if not _hidden(p.name)]
    if names and all(MOODLE_NAME.fullmatch(name) for name in names):
        return "moodle"
    flat = [p for p in root.iterdir() if not _hidden(p.name) and not p.is_dir()]
    if flat and sum(1 for p in flat if CANVAS_FILE.fullmatch(p.name)) * 2 > len(flat):
        return "canvas"
    folders = student_folders(root)
    if len(folders) > 1 and all((f / ".git").exists() for f in folders) and os.path.commonprefix(
            [f.name for f in folders]).count("-"):
        return "github-classroom"
    return "folders"
