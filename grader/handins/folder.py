"""A folder handed in: its Python files, read without following a link out of it or opening anything
that is not a regular file (a FIFO would block the grader)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from grader.handins.base import Context, Handin, refuse
from grader.handins.text import MAX_FILE_BYTES, read_bytes
from grader.text import text_of_name
from grader.handins.tree import IGNORED, MAX_FILES, MAX_TOTAL_BYTES, Tree, handin_of, wanted


class FolderForm:
    name = "folder"

    def read(self, path: Path, context: Context) -> Handin:
        root = Path(os.path.realpath(path))
        files: dict[str, bytes] = {}
        seen = total = 0
        for folder, subfolders, names in os.walk(root, followlinks=False):
            subfolders[:] = sorted(d for d in subfolders if d not in IGNORED and not d.startswith("."))
            for name in sorted(names) + [d for d in subfolders if os.path.islink(os.path.join(folder, d))]:
                seen += 1
                if seen > MAX_FILES:
                    return refuse(f"the folder holds more than {MAX_FILES} files; it is not read", form=self.name)
                full = Path(folder, name)
                relative = text_of_name(full.relative_to(root).as_posix())
                problem = _refused_entry(full, root, relative)
                if problem:
                    return refuse(problem, form=self.name)
                if not wanted(relative, context) or full.is_dir():
                    continue
                data, problem = read_bytes(full, MAX_FILE_BYTES)
                if data is None:
                    return refuse(f"{relative}: {problem}", form=self.name)
                total += len(data)
                if total > MAX_TOTAL_BYTES:
                    return refuse(f"the folder's Python files add up to more than {MAX_TOTAL_BYTES} bytes",
                                  form=self.name)
                files[relative] = data
        return handin_of(Tree(files, self.name, "the folder"), context)


def _refused_entry(full: Path, root: Path, relative: str) -> str:
    try:
        # realpath, not resolve(): on a link loop (loop.py -> loop.py) Python 3.11's resolve() raises.
        if full.is_symlink() and not Path(os.path.realpath(full)).is_relative_to(root):
            return f"{relative} is a symbolic link to outside the folder; the hand-in is not read"
        mode = os.stat(full).st_mode
    except OSError as error:
        return f"cannot read {relative}: {error.strerror}"
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return f"{relative} is not a regular file (a device, a pipe or a socket); the hand-in is not read"
    return ""
