"""What the grader computes once and keeps on disk, and where: the cache folder, its keys, and files written
whole. A leaf: it imports nothing from the grader, so anything may use it."""

from __future__ import annotations

import os
import pickle
import sys
from importlib.util import source_hash
from pathlib import Path


class CacheKey:
    """A cache key built from parts, fed as to a hashlib digest; `hexdigest` names the kept file.
    The hash is the one Python keys its own hash-based .pyc files with (64-bit SipHash, the same in every
    process): what it keys is ours, never an adversary's, and unlike hashlib it loads no OpenSSL, a few ms
    of every check."""

    def __init__(self, data: bytes = b"") -> None:
        self._parts = [data]

    def update(self, data: bytes) -> None:
        self._parts.append(data)

    def hexdigest(self) -> str:
        return source_hash(b"".join(self._parts)).hex()


def key_hash(data: bytes = b"") -> CacheKey:
    """A fresh key for a cached value (a kept calibration is named by it)."""
    return CacheKey(data)


def cache_dir() -> Path:
    root = os.environ.get("GRADER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "grader")
    path = Path(root)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:  # read-only: nothing is read back, and each write warns and goes on
        _cannot_keep(path, error)
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
    keep(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def keep(path: Path, data: bytes) -> bool:
    """Write a cache file whole; False (and a warning, once) where the cache cannot be written: a cache
    only saves time, so a read-only one never stops a grade."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomically(path, data)
        return True
    except OSError as error:
        _cannot_keep(path.parent, error)
        return False


_warned: list[Path] = []  # once per process: the first folder that could not be written says it for all


def _cannot_keep(folder: Path, error: OSError) -> None:
    if not _warned:
        _warned.append(folder)
        print(f"warning: the grader's cache at {folder} cannot be written ({error.strerror or error}); "
              f"grading goes on, computing again what it would keep (set GRADER_CACHE to a writable folder)",
              file=sys.stderr)


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
