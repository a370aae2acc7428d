"""benchmarks/serve.py, small: a class sent by concurrent clients beside a batch of the same files. Its
timings are the benchmark's to judge, on a quiet machine; here, that it runs to its end and that no hand-in
is lost or answered 5xx (its exit status)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_load_benchmark_loses_no_hand_in() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "serve.py"), "--students", "6", "--clients",
                             "4", "--idle", "2"], capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not 200/202: 0; reports 14 of 14" in result.stdout
    for figure in ("of the batch's throughput", "a perfect queue over the same workers", "server memory"):
        assert figure in result.stdout
