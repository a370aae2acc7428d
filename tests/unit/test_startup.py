"""What `grader check` leaves out of its start-up, where every millisecond is a student's wait: modules it has no
use for on an exercise whose spec and expected values are cached."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REFERENCE, run_cli

# yaml: the spec comes from the cache. hashlib: its import loads OpenSSL (~5 ms); cache keys use CPython's
# built-in SHA-256 without it. secrets: hmac, base64 and random for one random number. utf_8_sig: a codec module for a BOM.
# shutil: what argparse imports to read the terminal's width (with bz2 and lzma).
NOT_NEEDED = ("yaml", "hashlib", "_hashlib", "secrets", "encodings.utf_8_sig", "shutil")


def test_a_check_of_a_cached_exercise_imports_no_module_it_does_not_need() -> None:
    submission = REFERENCE / "chessboard-queens" / "accepted" / "bitmask.py"
    assert run_cli("check", "chessboard-queens", submission).returncode == 0  # fills the caches
    probe = ("import sys, grader.cli\n"
             "code = grader.cli.main(['check', 'chessboard-queens', sys.argv[1]])\n"
             f"print(code, [name for name in {NOT_NEEDED!r} if name in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, str(submission)], capture_output=True, text=True,
                          env=os.environ, timeout=120, check=False)
    assert done.stderr.strip() == "0 []"


def test_a_predict_check_makes_no_network_namespace_and_a_sandboxed_one_makes_one() -> None:
    from grader.sandbox.isolation import detect

    if not detect().netns:
        pytest.skip("needs the network namespace layer (root)")
    probe = ("import sys, grader.cli, grader.sandbox.isolation as layers\n"
             "grader.cli.main(['check', sys.argv[1], sys.argv[2], '--format', 'json'])\n"
             "print(layers._netns_holder is not None, layers._netns_starting is not None, file=sys.stderr)")
    for exercise, answer, made in (("predict-attacked", "answer.txt", "False"), ("count-queens", "bitmask.py", "True")):
        submission = REFERENCE / exercise / "accepted" / answer
        done = subprocess.run([sys.executable, "-c", probe, exercise, str(submission)], capture_output=True,
                              text=True, env=os.environ, timeout=120, check=False)
        assert done.stderr.split() == [made, "False"], (exercise, done.stderr)
