"""What the grader computes once and keeps on disk, and where: the cache folder, and loaded exercises.

A loaded exercise is kept as a pickle keyed by the spec's bytes, its path and the loader's own source, so
`grader check` skips importing and running the YAML parser (~30 ms of every start) while the spec is
unchanged. A spec with problems is never cached: its errors are reported at every load."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from grader.model import Exercise

# The modules whose code decides what a spec loads as: a change to any of them is a new key.
_LOADER_SOURCES = ("spec.py", "model.py", "checkers.py", "errors.py")


def cache_dir() -> Path:
    root = os.environ.get("GRADER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "grader")
    path = Path(root)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def load_exercise(path: Path) -> Exercise:
    """The exercise in the spec at `path`, from the cache when its content was loaded before."""
    digest = hashlib.sha256(str(path.resolve()).encode() + b"\0")
    try:
        digest.update(path.read_bytes())
    except OSError:
        pass  # the loader reports it
    here = Path(__file__).parent
    for name in _LOADER_SOURCES:
        digest.update((here / name).read_bytes())
    cached = cache_dir() / "exercises" / f"{digest.hexdigest()}.pickle"
    try:
        with open(cached, "rb") as file:
            exercise = pickle.load(file)
        if isinstance(exercise, Exercise):
            return exercise
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        pass  # not cached yet, or written by another version: load it again
    from grader.spec import load_exercise as load_spec  # YAML only when the cache cannot answer

    exercise = load_spec(path)
    cached.parent.mkdir(mode=0o700, exist_ok=True)
    temporary = cached.with_suffix(f".{os.getpid()}.tmp")
    with open(temporary, "wb") as file:
        pickle.dump(exercise, file, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(temporary, cached)  # atomic: a parallel grader never reads half a file
    return exercise
