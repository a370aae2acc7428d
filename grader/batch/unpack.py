"""A platform's zip download, unpacked where the batch keeps its files: only plain files, only inside the
folder, and never more than a class could hand in (a zip bomb is refused, not unpacked)."""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from grader.errors import UsageError

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
MAX_FILES = 100_000


def unpack(archive: Path, into: Path) -> tuple[Path, list[str]]:
    """Unpacks `archive` into a fresh `into/<archive name>/`; returns that folder and the members left out
    (a link, or a name that leads outside the folder)."""
    target = into / archive.stem
    left_out: list[str] = []
    try:
        with zipfile.ZipFile(archive) as opened:
            members = opened.infolist()
            _check(archive, members)
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            for member in members:
                relative = _safe_name(member.filename)
                if member.is_dir():
                    continue
                if relative is None or is_link(member):
                    left_out.append(f"{member.filename} (in {archive.name}: a link, or a path out of the folder)")
                    continue
                path = target.joinpath(*relative.parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                with opened.open(member) as source, path.open("wb") as copy:
                    shutil.copyfileobj(source, copy)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise UsageError(f"cannot unpack {archive}: {error}") from None
    return target, left_out


def _check(archive: Path, members: list[zipfile.ZipInfo]) -> None:
    if len(members) > MAX_FILES:
        raise UsageError(f"{archive} holds {len(members)} files; the most a batch unpacks is {MAX_FILES}")
    total = sum(member.file_size for member in members)
    big = [m.filename for m in members if m.file_size > MAX_FILE_BYTES]
    if big or total > MAX_TOTAL_BYTES:
        raise UsageError(f"{archive} unpacks to {total} bytes (largest file {max(m.file_size for m in members)}); "
                         f"the limits are {MAX_FILE_BYTES} per file and {MAX_TOTAL_BYTES} in all: unpack it "
                         f"yourself if it is really a class's work")


def _safe_name(name: str) -> PurePosixPath | None:
    """The member's path inside the folder, or None for one that would land outside it (or is a link)."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts or ":" in path.parts[0]:
        return None
    return path


def is_link(member: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(member.external_attr >> 16)
