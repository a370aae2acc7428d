"""Outputs replace their previous version whole: a reader never sees half a file or a stale student."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grader.cache import write_atomically


def write_atomic(path: Path, text: str) -> Path:
    write_atomically(path, text.encode("utf-8"))
    return path


@contextmanager
def swapped_folder(final: Path) -> Iterator[Path]:
    """A new folder to fill; on success it takes the place of `final` (so students gone since vanish)."""
    building, old = final.with_name(final.name + ".new"), final.with_name(final.name + ".old")
    for leftover in (building, old):
        shutil.rmtree(leftover, ignore_errors=True)
    building.mkdir(parents=True)
    yield building
    if final.exists():
        final.rename(old)
    building.rename(final)
    shutil.rmtree(old, ignore_errors=True)
