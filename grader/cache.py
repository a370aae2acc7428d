"""What the grader computes once and keeps on disk, and where: the cache folder, and loaded exercises.

A loaded exercise is kept as a pickle keyed by the spec's bytes, its path and the loader's own source, so
`grader check` skips importing and running the YAML parser (~30 ms of every start) while the spec is
unchanged. A spec with problems is never cached: its errors are reported at every load."""

from __future__ import annotations

import functools
import os
import pickle
from pathlib import Path

from grader.model import Exercise

try:  # CPython's own SHA-256, the same digests as hashlib's without its loading of OpenSSL (~5 ms of every start)
    from _sha256 import sha256  # Python 3.11
except ImportError:  # pragma: no cover - 3.12 renamed it; a build without it has hashlib's
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

# The modules whose code decides what a spec loads as: a change to any of them is a new key.
_LOADER_SOURCES = ("spec.py", "model.py", "checkers.py", "errors.py")


def key_hash(data: bytes = b"") -> sha256:
    """A fresh SHA-256 for a cache key: the keys that hashlib.sha256 gave, so kept calibrations stay found."""
    return sha256(data)


def cache_dir() -> Path:
    root = os.environ.get("GRADER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "grader")
    path = Path(root)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def load_exercise(path: Path) -> Exercise:
    """The exercise in the spec at `path`, from the cache when its content was loaded before."""
    digest = key_hash(_loader_source() + str(path.resolve()).encode() + b"\0")
    try:
        digest.update(path.read_bytes())
    except OSError:
        pass  # the loader reports it
    cached = cache_dir() / "exercises" / f"{digest.hexdigest()}.pickle"
    exercise = read_pickle(cached)
    if isinstance(exercise, Exercise):
        return exercise
    from grader.spec import load_exercise as load_spec  # YAML only when the cache cannot answer

    exercise = load_spec(path)
    cached.parent.mkdir(mode=0o700, exist_ok=True)
    write_pickle(cached, exercise)
    return exercise


@functools.cache  # read once per process, however many specs it loads
def _loader_source() -> bytes:
    here = Path(__file__).parent
    return b"".join((here / name).read_bytes() for name in _LOADER_SOURCES)


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
    """Write `path` whole: a parallel grader never reads half a file."""
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
