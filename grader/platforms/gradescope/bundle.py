"""`grader export --gradescope OUT.zip`: the autograder zip Gradescope builds its image from. At its root,
setup.sh and run_autograder (gradescope/autograder_samples docs/specs.md), the course's files as the
instructor wrote them (grader.platforms.shared.course_files), its environment's pinned list when it has one
(grader.platforms.shared.environment_files: setup.sh builds it), and dist/ with a wheel of this grader."""

from __future__ import annotations

import shlex
import stat
import tempfile
import zipfile
from importlib.resources import files
from pathlib import Path

from grader.errors import UsageError
from grader.model import Exercise
from grader.platforms.shared.course_files import course_files, course_secret_file
from grader.platforms.shared.environment_files import environment_files
from grader.platforms.shared.wheel import build_wheel
from grader.records import record

EXECUTABLE = stat.S_IFREG | 0o755
READABLE = stat.S_IFREG | 0o644


@record
class GradescopeBundle:
    path: Path
    exercises: list[str]
    wheel: str
    entries: int


def write_gradescope_bundle(exercises: list[Exercise], out: Path, *, match: tuple[str, ...] = (),
                            force: bool = False) -> GradescopeBundle:
    if out.exists() and not force:
        raise UsageError(f"{out} exists; pass --force to overwrite it")
    if out.suffix.lower() != ".zip":
        raise UsageError(f"{out}: Gradescope takes a .zip")
    run_autograder = (files("grader.platforms.gradescope") / "run_autograder").read_text(encoding="utf-8").replace(
        "@MATCH@", " ".join(f"--match {shlex.quote(template)}" for template in match)).replace(" \n", "\n")
    entries: dict[str, tuple[bytes, int]] = {
        "setup.sh": ((files("grader.platforms.shared") / "setup.sh").read_bytes(), EXECUTABLE),
        "run_autograder": (run_autograder.encode(), EXECUTABLE),
    }
    for name, path in course_files(exercises).items():  # checker files and generators.py included
        entries[name] = (path.read_bytes(), READABLE)
    for name, data in course_secret_file(exercises).items():  # each submitter's variant, computed there
        entries[name] = (data, READABLE)
    for name, data in environment_files(exercises).items():  # setup.sh builds it when it is there
        entries[name] = (data, READABLE)
    with tempfile.TemporaryDirectory() as building:
        wheel = build_wheel(Path(building))
        entries[f"dist/{wheel.name}"] = (wheel.read_bytes(), READABLE)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, (data, mode) in entries.items():
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = mode << 16  # run_autograder must stay executable once unpacked
            archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
    partial.replace(out)
    return GradescopeBundle(out, [e.id for e in exercises], wheel.name, len(entries))
