"""`grader similar` costs memory linear in the code compared: files of one line repeated, or of brackets
nested thousands deep, are compared without pairing every repeat with every other (that took 725 MB for
two 20 kB files). Measured as the command's peak resident memory, which does not depend on the machine's speed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.similarity.classroom import write_class

# The command's own peak: VmHWM of the process after exec. Not getrusage's ru_maxrss, which Linux carries
# over exec from the process that spawned it: a long test run's pytest (hundreds of MiB) showed as the peak.
MEASURED = """
import sys
from grader.cli import main
code = main(sys.argv[1:])
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(int(code), int(peak.split()[1]) // 1024)
"""
# The interpreter and the grader's imports are ~35 MiB of it; pairing every repeat with every other took
# 725 MB for 20 kB files, and gigabytes for these.
MOST_MIB = 150


@pytest.mark.parametrize("source", ["x = x + 1\n" * 2_000, "x = " + "[" * 10_000 + "]" * 10_000 + "\n"],
                         ids=["repeated-line", "nested"])
def test_hostile_files_are_compared_in_bounded_memory(tmp_path: Path, source: str) -> None:
    folder = write_class(tmp_path / "class", {"ada": source, "bob": source, "cy": source[: len(source) // 2]})
    run = subprocess.run([sys.executable, "-c", MEASURED, "similar", str(folder), "--exercise", "count-queens",
                          "--format", "json"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    code, peak_mib = map(int, run.stdout.split()[-2:])
    assert code == 0 and peak_mib < MOST_MIB, (code, peak_mib)
    assert '"score": 1.0' in run.stdout  # ada and bob are the same file: still found
