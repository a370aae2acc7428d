"""What the grader computes once and keeps on disk, and where: the cache folder, its keys, and files written
whole. A leaf: it imports nothing from the grader, so anything may use it."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path


def key_hash(data: bytes = b"") -> hashlib._Hash:
    """A fresh SHA-256 for a cache key (a kept calibration is named by its digest)."""
    return hashlib.sha256(data)


def cache_dir() -> Path:
    root = os.environ.get("GRADER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "grader")
    path = Path(root)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def read_pickle(path: Path) -> object | None:
    """What `write_pickle` kept at `path`; None when nothing is there or it cannot be read back (damaged,
    or written by another version). The folder is the grader's own (0700) and hidden from every sandbox."""
    try:
        with open(path, "rb") as file:
            return pickle.load(file)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        return None


def write_pickle(path: Path, value: object) -> None:
    write_atomically(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def write_atomically(path: Path, data: bytes) -> None:
    """Write `path` whole: a parallel grader or a reader never sees half a file. The temporary file is
    hidden beside it (the same file system, so the rename is atomic) and named per process."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
