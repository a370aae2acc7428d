"""A course's environment: the pinned packages its students may import (numpy, pandas...), named in
grader-course.yaml, built once per content into a folder the sandbox's uid can read, and put on the
sandbox's sys.path for every submission of the course.

    environment:
      packages: [numpy==2.4.6, pandas==3.1.1]     # or
      requirements: requirements.txt              # a file of pinned lines, beside the course file

Building is explicit (`grader env build`, or `grader validate`): a check never downloads. The build is a
venv made from the sandbox's own interpreter (`isolation.child_python`, Debian's /usr/bin/python3.11 when
the grader runs as root), filled by pip, keyed by the list and the interpreter, and moved into place whole:
a half-built environment is never used. Every environment lives under one folder (`environments_root`), the
only folder outside the system ones that the sandbox may read (see jail.py)."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

from grader.cache import key_hash
from grader.errors import UsageError
from grader.records import record
from grader.sandbox.environments import environments_root

COURSE_FILE = "grader-course.yaml"
MARKER = "grader-environment.json"  # written last: its presence means the build finished
BUILD_VERSION = "1"  # a change to how environments are built is a new key
# A pinned requirement: a name (with extras) and one exact version; markers after ';' are allowed.
_PINNED = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?\s*===?\s*[A-Za-z0-9.*+!_-]+\s*(;.*)?$")
# What the sandbox's process gets with an environment: one thread of BLAS (the `processes` limit and CPU
# accounting stay right), matplotlib headless with its cache in the working folder.
SANDBOX_VARIABLES = {
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1", "BLIS_NUM_THREADS": "1", "MPLBACKEND": "Agg",
}


class CourseEnvironmentError(UsageError):
    """The course's environment is declared wrongly, or cannot be built; the message says which and why."""


@record
class Environment:
    """A course's declared packages, and where they are (or will be) built for an interpreter."""

    packages: tuple[str, ...]
    declared_in: Path  # the course file
    interpreter: str  # the sandbox's interpreter, resolved

    @property
    def key(self) -> str:
        digest = key_hash(f"{BUILD_VERSION}\0{self.interpreter}\0{_interpreter_identity(self.interpreter)}\0".encode())
        digest.update("\n".join(self.packages).encode())
        return digest.hexdigest()

    @property
    def path(self) -> Path:
        return environments_root() / self.key

    @property
    def site_packages(self) -> Path:
        return self.path / "lib" / _interpreter_identity(self.interpreter).split()[0] / "site-packages"

    @property
    def built(self) -> bool:
        return (self.path / MARKER).is_file()

    @property
    def name(self) -> str:
        """How reports and `grader doctor` name it: its packages and its key."""
        return f"environment {self.key[:12]} ({', '.join(self.packages) or 'no packages'})"

    def requirements_text(self) -> str:
        """The pinned list, one a line, as pip reads it: what a bundle carries to build it at set-up."""
        return "".join(f"{line}\n" for line in self.packages)

    def not_built_message(self) -> str:
        return (f"the course's {self.name} is not built on this machine: run `grader env build` "
                f"(in the course folder) once; checks never download packages")

    def sandbox_setup(self) -> dict[str, object]:
        """The harness's part: the folder put on sys.path, and the variables set before the submission loads."""
        return {"site_packages": str(self.site_packages), "environ": dict(SANDBOX_VARIABLES)}


@functools.cache
def _interpreter_identity(python: str) -> str:
    """'python3.11 3.11.2 ...': the folder name of its site-packages and its exact version."""
    import subprocess

    try:
        out = subprocess.run([python, "-I", "-S", "-c", "import sys; v = sys.version_info; "
                              "print(f'python{v[0]}.{v[1]}', sys.version.replace(chr(10), ' '))"],
                             capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as error:
        raise CourseEnvironmentError(f"cannot run the sandbox's interpreter {python}: {error}") from None
    return out.stdout.strip()


# ---------------------------------------------------------------- what a course declares
def course_file_of(exercises_dir: Path) -> Path | None:
    """The course file of the course whose specs are in `exercises_dir` (beside that folder, or in it)."""
    for folder in (exercises_dir.parent, exercises_dir):
        if (folder / COURSE_FILE).is_file():
            return folder / COURSE_FILE
    return None


def environment_of_exercise(spec_path: Path) -> Environment | None:
    """The environment of the course an exercise's spec belongs to; None when it declares none."""
    config = course_file_of(spec_path.resolve().parent)
    return _declared(config, _mtime(config)) if config is not None else None


def environment_of_course(exercises_dir: Path) -> Environment | None:
    config = course_file_of(exercises_dir.resolve())
    return _declared(config, _mtime(config)) if config is not None else None


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


@functools.lru_cache(maxsize=16)
def _declared(config: Path, _mtime_ns: int) -> Environment | None:
    """The `environment:` of a course file (kept per file and modification time)."""
    import yaml

    try:
        settings = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise CourseEnvironmentError(f"{config}: cannot read the course file: {error}") from None
    declared = settings.get("environment") if isinstance(settings, dict) else None
    if declared is None:
        return None
    line = _line_of(config, "environment")
    if not isinstance(declared, dict) or not ({"packages", "requirements"} & declared.keys()):
        raise CourseEnvironmentError(f"{config}:{line}: key 'environment': a mapping with 'packages' (a list of "
                                f"pinned requirements, such as numpy==2.4.6) or 'requirements' (a file of them)")
    unknown = set(declared) - {"packages", "requirements"}
    if unknown:
        raise CourseEnvironmentError(f"{config}:{line}: key 'environment': unknown key(s) {', '.join(sorted(unknown))}")
    lines: list[str] = []
    packages = declared.get("packages", [])
    if not isinstance(packages, list) or not all(isinstance(p, str) for p in packages):
        raise CourseEnvironmentError(f"{config}:{_line_of(config, 'packages')}: key 'environment.packages': "
                                f"a list of pinned requirements, such as [numpy==2.4.6]")
    lines += packages
    if "requirements" in declared:
        file = config.parent / str(declared["requirements"])
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as error:
            raise CourseEnvironmentError(f"{config}:{_line_of(config, 'requirements')}: key "
                                    f"'environment.requirements': cannot read {file}: {error.strerror}") from None
        lines += [row.split(" #")[0].strip() for row in text.splitlines()]
    lines = [row.strip() for row in lines if row.strip() and not row.strip().startswith("#")]
    loose = [row for row in lines if not _PINNED.match(row)]
    if loose:
        raise CourseEnvironmentError(f"{config}:{line}: key 'environment': not pinned to one version: "
                                f"{', '.join(loose)} (write name==version: the build must be the same everywhere)")
    from grader.sandbox.isolation import child_python

    return Environment(tuple(sorted(set(lines), key=str.lower)), config, os.path.realpath(child_python()))


def _line_of(config: Path, key: str) -> int:
    try:
        for number, text in enumerate(config.read_text(encoding="utf-8").splitlines(), start=1):
            if text.lstrip().startswith(f"{key}:"):
                return number
    except OSError:
        pass
    return 1


# ---------------------------------------------------------------- building
def build(environment: Environment, progress: Callable[[str], None] = print) -> Path:
    """Build the environment unless it is built (its path either way). One build at a time per key (a lock);
    made in a sibling folder and renamed into place when pip succeeded."""
    if environment.built:
        progress(f"{environment.name}: already built at {environment.path}")
        return environment.path
    import fcntl
    import shutil
    import tempfile

    root = environments_root()
    root.mkdir(parents=True, exist_ok=True)
    _readable(root)
    with open(root / f".{environment.key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if environment.built:  # another build finished while we waited
            return environment.path
        staging = Path(tempfile.mkdtemp(prefix=f".{environment.key}-", dir=root))
        try:
            _build_into(environment, staging, progress)
            shutil.rmtree(environment.path, ignore_errors=True)  # a half-built one from an older grader
            os.rename(staging, environment.path)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    progress(f"{environment.name}: built at {environment.path}")
    return environment.path


def _build_into(environment: Environment, folder: Path, progress: Callable[[str], None]) -> None:
    import json
    import sys

    python = environment.interpreter
    progress(f"making a venv from {python} in {folder}")
    _run([python, "-m", "venv", "--without-pip", str(folder)], progress)
    requirements = folder / "requirements.txt"
    requirements.write_text(environment.requirements_text(), encoding="utf-8")
    if environment.packages:
        progress(f"installing {len(environment.packages)} pinned package(s) with pip")
        # Our own pip, pointed at the venv's interpreter: the sandbox's interpreter may have no pip at all.
        _run([sys.executable, "-m", "pip", "--python", str(folder / "bin" / "python"), "install",
              "--no-input", "--progress-bar", "off", "--disable-pip-version-check", "-r", str(requirements)],
             progress)
    # Compiled once here: the sandbox cannot write bytecode (-B, a read-only folder).
    _run([str(folder / "bin" / "python"), "-m", "compileall", "-q", "-j", "0", str(folder / "lib")], progress,
         check=False)
    _readable(folder, recursive=True)
    (folder / MARKER).write_text(json.dumps({"packages": list(environment.packages), "interpreter": python,
                                             "key": environment.key}), encoding="utf-8")
    os.chmod(folder / MARKER, 0o644)


def _run(command: list[str], progress: Callable[[str], None], check: bool = True) -> None:
    import subprocess

    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env={**os.environ, "PIP_REQUIRE_VIRTUALENV": "0"}) as process:
        assert process.stdout is not None
        tail: list[str] = []
        for row in process.stdout:
            row = row.rstrip()
            if row and not row.startswith("WARNING: Location"):
                progress(f"  {row}")
                tail = [*tail[-19:], row]
    if check and process.returncode != 0:
        raise CourseEnvironmentError(f"building the environment failed ({command[0]} {command[1]} {command[2]} "
                                f"exited with {process.returncode}):\n" + "\n".join(tail))


def _readable(path: Path, recursive: bool = False) -> None:
    """World-readable and traversable, never writable by others: the sandbox's uid reads it, and only us."""
    os.chmod(path, 0o755)
    if recursive:
        for folder, dirs, files in os.walk(path):
            for name in dirs:
                os.chmod(os.path.join(folder, name), 0o755)
            for name in files:
                full = os.path.join(folder, name)
                if not os.path.islink(full):
                    mode = os.stat(full).st_mode
                    os.chmod(full, 0o755 if mode & 0o100 else 0o644)


def report_note(spec_path: Path) -> str:
    """What a report's isolation line adds for the exercise's course: its environment, or nothing."""
    environment = environment_of_exercise(spec_path)
    return f"; {environment.name}" if environment is not None else ""
