"""What the hostile hand-ins of issue 25 cost the grader: for each, the CPU time, the wall time and the peak
memory of a fresh process that reads it (or compares it) through the CLI's own code, and what it became.
Prints its figures and the command that made them.

    .venv/bin/python benchmarks/hostile.py [CASE ...]

Each case runs in a process of its own (`--one CASE`), so that its peak resident memory (ru_maxrss) is its
own (VmHWM; the parent writes the files first); `baseline` is such a process that reads nothing: the interpreter
and the grader's imports; 'grew' is the peak less what the process held before the case began. Cases:

- notebooks: nbformat-3 headings of level 7x10**8 and 10**12, JSON nested 100,000 deep, 2 million values;
  the largest notebook accepted (8 MB, one base64 image output) for comparison.
- zips: 170,000 empty members (14 MB), 1,000 members of 16 kB.
- similarity (`grader similar`, two students): two 125 kB files of one repeated line, two 60 kB files of
  nested brackets, two 20 kB files of one repeated line.
"""

from __future__ import annotations

import base64
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _v3_heading(level: int) -> bytes:
    return json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"metadata": {}, "cells": [
        {"cell_type": "heading", "level": level, "source": "x", "metadata": {}}]}]}).encode()


def _big_notebook() -> bytes:
    image = base64.b64encode(os.urandom(5_900_000)).decode()
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "a1", "metadata": {}, "execution_count": 1, "source": "def add(a, b):\n    return a + b\n",
         "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/png": image}}]}]}).encode()


def _zip(members: list[tuple[str, bytes]], declared: int | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    data = buffer.getvalue()
    if declared is not None:  # a member whose central record declares more than it holds
        data = data.replace((len(members[0][1])).to_bytes(4, "little"), declared.to_bytes(4, "little"))
    return data


NOTEBOOKS: dict[str, Callable[[], bytes]] = {
    "notebook: heading level 7x10**8": lambda: _v3_heading(7 * 10**8),
    "notebook: heading level 10**12": lambda: _v3_heading(10**12),
    "notebook: nested 100,000 deep": lambda: (b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [], "x": '
                                              + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    "notebook: 2 million values": lambda: (b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [], "x": ['
                                           + b"0," * 2_000_000 + b"0]}"),
    "notebook: 8 MB, one image (accepted)": _big_notebook,
}
ZIPS: dict[str, Callable[[], bytes]] = {
    "zip: 170,000 empty members": lambda: _zip([(f"{i:x}", b"") for i in range(170_000)]),
    "zip: 1,000 members of 16 kB": lambda: _zip([(f"m{i}.py", b"#" * 16_000) for i in range(1000)]),
}
REPEATED = "x = x + 1\n"
SIMILAR: dict[str, Callable[[], str]] = {
    "similar: 2 x 125 kB, one repeated line": lambda: REPEATED * 12_500,
    "similar: 2 x 60 kB, nested brackets": lambda: "x = " + "[" * 30_000 + "]" * 30_000 + "\n",
    "similar: 2 x 20 kB, one repeated line": lambda: REPEATED * 2_000,
}
CASES = ["baseline", *NOTEBOOKS, *ZIPS, *SIMILAR]
ADD = "title: Add\nkind: function\nentry: add\nstatement: s\ntests:\n  - name: t\n    call: add(1, 2)\n    expect: 3\n"


def peak_kib() -> int:
    """This process's peak resident memory (VmHWM): its own image's, unlike ru_maxrss, which keeps the
    parent's from before exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def prepare(case: str, root: Path) -> None:
    """The course and the case's files, written by the parent: the measured process only reads them."""
    (root / "exercises").mkdir()
    (root / "exercises" / "add.yaml").write_text(ADD)
    (root / "reference" / "add" / "accepted").mkdir(parents=True)
    (root / "reference" / "add" / "accepted" / "plain.py").write_text("def add(a, b):\n    return a + b\n")
    if case in SIMILAR:
        for student in ("ada", "bob"):
            (root / "class" / student).mkdir(parents=True)
            (root / "class" / student / "add.py").write_text(SIMILAR[case]())
    elif case != "baseline":
        (root / ("add.ipynb" if case in NOTEBOOKS else "add.zip")).write_bytes((NOTEBOOKS | ZIPS)[case]())


def one(case: str, root: Path) -> dict[str, object]:
    """Run one case in this process; what it cost and what it became."""
    from grader.cli import main
    from grader.course import Course
    from grader.handins import read_handin

    exercise = Course.at(root / "exercises").load("add")
    before = peak_kib()
    wall, cpu = time.perf_counter(), time.process_time()
    if case in SIMILAR:
        code = main(["similar", str(root / "class"), "--exercises", str(root / "exercises"), "--format", "json"])
        became = f"exit {int(code)}"
    elif case == "baseline":
        became = "-"
    else:
        handin = read_handin(root / ("add.ipynb" if case in NOTEBOOKS else "add.zip"), exercise)
        became = handin.refused[:90] or f"read: {len(handin.source)} characters of code"
    return {"case": case, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
            "peak_mib": peak_kib() / 1024,
            "before_mib": before / 1024, "became": became}


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        result = one(sys.argv[2], Path(sys.argv[3]))
        sys.stdout.flush()
        print("\n" + json.dumps(result))
        return
    cases = sys.argv[1:] or CASES
    print(f"$ {Path(sys.executable).name} benchmarks/hostile.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"{'case':42} {'CPU s':>6} {'wall s':>7} {'peak MiB':>9} {'grew MiB':>9}  became")
    for case in cases:
        with tempfile.TemporaryDirectory() as folder:
            prepare(case, Path(folder))
            run = subprocess.run([sys.executable, __file__, "--one", case, folder], capture_output=True, text=True,
                                 cwd=ROOT, timeout=600)
        if run.returncode != 0:
            print(f"{case:42} failed: {run.stderr.strip().splitlines()[-1:]}")
            continue
        figures = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"{case:42} {figures['cpu']:6.2f} {figures['wall']:7.2f} {figures['peak_mib']:9.0f} "
              f"{figures['peak_mib'] - figures['before_mib']:9.0f}  {figures['became']}")


if __name__ == "__main__":
    main()
