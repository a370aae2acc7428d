"""What `grader check` starts on its way: a network namespace only for a submission that runs in a sandbox."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REFERENCE


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


def test_a_check_imports_its_own_kind_and_format_and_looks_for_no_installed_package() -> None:
    # The registries are lazy: one kind, one output module; installed packages (importlib.metadata reads
    # every distribution on the path) are looked at only for a name that is not the grader's own.
    probe = ("import sys, grader.cli\n"
             "grader.cli.main(['check', sys.argv[1], sys.argv[2], '--format', 'json'])\n"
             "print(*sorted(m for m in sys.modules if m.startswith(('grader.kinds.', 'grader.outputs.', "
             "'importlib.metadata'))), file=sys.stderr)")
    submission = REFERENCE / "predict-attacked" / "accepted" / "answer.txt"
    done = subprocess.run([sys.executable, "-c", probe, "predict-attacked", str(submission)], capture_output=True,
                          text=True, env=os.environ, timeout=120, check=False)
    assert done.stderr.split() == ["grader.kinds.base", "grader.kinds.predict", "grader.outputs.json_report"], \
        done.stderr
