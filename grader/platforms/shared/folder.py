"""Writing a platform bundle as a folder: the course's files, the grader's wheel, and the platform's own
files, refused over a folder that is not empty unless forced."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from grader.errors import UsageError
from grader.model import Exercise
from grader.platforms.shared.course_files import course_files, course_secret_file
from grader.platforms.shared.environment_files import environment_files
from grader.platforms.shared.wheel import build_wheel


def start_folder(root: Path, force: bool) -> None:
    if root.exists() and any(root.iterdir()) and not force:
        raise UsageError(f"{root} is not empty; pass --force to write into it")
    root.mkdir(parents=True, exist_ok=True)


def copy_course(exercises: list[Exercise], into: Path) -> None:
    """The course's files, and its environment's (the course file and pinned list) when it has one."""
    for name, path in course_files(exercises).items():
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, into / name)
    for name, data in course_secret_file(exercises).items():
        (into / name).write_bytes(data)
        (into / name).chmod(0o600)
    write_environment(exercises, into)


def write_environment(exercises: list[Exercise], into: Path) -> bool:
    """grader-course.yaml and requirements.txt at the bundle's root; whether the course has an environment."""
    written = environment_files(exercises)
    for name, data in written.items():
        (into / name).write_bytes(data)
    return bool(written)


def write_wheel(into: Path) -> str:
    """The grader's wheel in `into`, the only one there; returns its file name."""
    into.mkdir(parents=True, exist_ok=True)
    for old in into.glob("*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as building:
        wheel = build_wheel(Path(building))
        shutil.copyfile(wheel, into / wheel.name)
    return wheel.name
