"""Run ruff on one hand-in's source, bounded: an isolated ruff (no configuration file, the spec's rules only,
`# noqa` comments ignored) on a copy in a temporary folder, under CPU, wall-clock and output limits, so a
hostile file (huge, deeply nested, a hundred thousand issues) gets a reason, never a hang or a flood.

ruff only parses the file, never runs it; the limits are for its time and its output. It is exec'd from a
tiny Python launcher that sets the limits first (a `preexec_fn` is unsafe in a process with threads, and a
check imports its report's modules on one)."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from grader.records import record

SOURCE_MOST = 1 << 20  # bytes of source ruff is asked to read: a hand-in past it is not checked
OUTPUT_MOST = 2 << 20  # bytes of ruff's findings read back: past it, the findings read are counted
CPU_SECONDS = 20  # ruff lints a normal file in milliseconds: these bound a pathological one
WALL_SECONDS = 60.0
FILE_NAME = "submission.py"
# Sets the limits in the child, then becomes ruff: argv is [ruff, ruff's args...], limits from the environment.
_LAUNCH = (
    "import os, resource, sys\n"
    "cpu, size = int(os.environ['CPU']), int(os.environ['SIZE'])\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


@record
class Finding:
    """One of ruff's diagnostics, as it wrote it."""

    code: str
    message: str
    line: int
    column: int
    url: str = ""


@record
class Findings:
    found: tuple[Finding, ...] = ()
    failure: str = ""  # why there are none to trust: ruff was too slow, failed, or the file too large
    grader_fault: bool = False  # the failure is ours (ruff would not start), not the file's
    cut: bool = False  # ruff's output passed OUTPUT_MOST: `found` holds the findings read before it


@functools.lru_cache(maxsize=1)
def ruff_version() -> str:
    """"ruff 0.17.5": the version pinned in pyproject.toml, as the report names it."""
    return f"ruff {version('ruff')}"


def _ruff() -> str:
    from ruff import find_ruff_bin  # the binary the `ruff` wheel installed beside this interpreter

    return str(find_ruff_bin())


def command(select: tuple[str, ...], ignore: tuple[str, ...]) -> list[str]:
    """ruff's arguments: nothing read from the folder or the user's settings, the spec's rules only."""
    argv = ["check", "--isolated", "--no-cache", "--ignore-noqa", "--exit-zero", "--quiet",
            "--output-format", "json-lines", "--select", ",".join(select)]
    return argv + (["--ignore", ",".join(ignore)] if ignore else [])


def run_ruff(source: str, select: tuple[str, ...], ignore: tuple[str, ...] = (), *,
             wall: float = WALL_SECONDS) -> Findings:
    """What ruff finds in `source` under rules `select` minus `ignore`; never raises for the file's sake."""
    data = source.encode("utf-8", "surrogatepass")
    if len(data) > SOURCE_MOST:
        return Findings(failure=f"the file is over {SOURCE_MOST >> 20} MiB: its code quality was not checked")
    with tempfile.TemporaryDirectory(prefix="grader-ruff-") as folder:
        Path(folder, FILE_NAME).write_bytes(data)
        out, err = Path(folder, "out"), Path(folder, "err")
        argv = [sys.executable, "-I", "-S", "-c", _LAUNCH, _ruff(), *command(select, ignore), FILE_NAME]
        env = {"CPU": str(CPU_SECONDS), "SIZE": str(OUTPUT_MOST + 1), "LANG": "C.UTF-8", "NO_COLOR": "1"}
        try:
            with out.open("wb") as stdout, err.open("wb") as stderr:
                done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, cwd=folder,
                                      env=env, timeout=wall, check=False)
        except subprocess.TimeoutExpired:
            return Findings(failure=f"ruff took over {wall:g} s: the file's code quality was not checked")
        except OSError as error:
            return Findings(failure=f"ruff could not start ({error.strerror}): code quality was not checked",
                            grader_fault=True)
        with out.open("rb") as stream:
            written = stream.read(OUTPUT_MOST + 1)
        cut = len(written) > OUTPUT_MOST
        if done.returncode != 0 and not cut:
            with err.open("rb") as stream:
                said = stream.read(2000).decode("utf-8", "replace").strip().splitlines()
            why = said[-1] if said else f"exit status {done.returncode}"
            return Findings(failure=f"ruff failed on the file ({why}): code quality was not checked")
    return Findings(tuple(_findings(written[:OUTPUT_MOST], cut)), cut=cut)


def _findings(written: bytes, cut: bool) -> list[Finding]:
    lines = written.split(b"\n")
    if cut or not written.endswith(b"\n"):
        lines.pop()  # a line cut short by the limit
    found = []
    for line in lines:
        if not line.strip():
            continue
        item = json.loads(line)
        if not item.get("code"):  # invalid-syntax: the file parsed in Python, so a ruff parser's limit
            continue
        where = item.get("location") or {}
        found.append(Finding(str(item["code"]), str(item.get("message", "")), int(where.get("row", 0)),
                             int(where.get("column", 0)), str(item.get("url") or "")))
    return found


def unknown_selector(selectors: tuple[str, ...]) -> str:
    """ruff's own message when one of `selectors` names no rule (a spec's typo), else ""."""
    if not selectors:
        return ""
    try:
        done = subprocess.run([_ruff(), *command(selectors, ()), "-"], input=b"", capture_output=True,
                              timeout=WALL_SECONDS, check=False, env={"LANG": "C.UTF-8", "NO_COLOR": "1"})
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"ruff could not be run to check the rules: {error}"
    if done.returncode == 0:
        return ""
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return next((line.strip().removeprefix("Cause: ") for line in lines if "Cause:" in line),
                lines[-1] if lines else "ruff refused the rules")
