"""A student bundle carries the grader's wheel and says how to install it: a fresh virtual environment
installs the grader from the bundle alone, with pip's index switched off, and grades with it."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from grader.server.assets import EDITOR_FOLDER, manifest
from tests.conftest import EXERCISES, run_cli


def test_a_fresh_environment_installs_the_grader_from_the_bundle_with_no_index(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    exported = run_cli("export", "--student", bundle, "--exercises", EXERCISES)
    assert exported.returncode == 0, exported.stderr
    [wheel] = (bundle / "wheels").glob("*.whl")
    readme = (bundle / "README.md").read_text()
    assert f"`wheels/{wheel.name}`" in readme and "pip install --find-links wheels yaml-grader" in readme
    assert "pip install --no-index --find-links wheels yaml-grader" in readme  # and how without a network
    with zipfile.ZipFile(wheel) as packed:  # the server's editor travels in it, every file its manifest lists
        names = set(packed.namelist())
        vendored = "grader/server/static/vendor/" + EDITOR_FOLDER
        assert {f"{vendored}/{name}" for name in [*manifest()["files"], "MANIFEST.json"]} <= names
        assert "grader/server/static/work.js" in names

    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", fresh], check=True, timeout=120)
    python = fresh / "bin" / "python"
    # --no-deps: this machine's index is not the point; the dependencies come from this environment below.
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-index", "--no-deps",
                    "--find-links", bundle / "wheels", "yaml-grader"], check=True, timeout=300)
    dependencies = sysconfig.get_paths()["purelib"]  # PyYAML, rich...: the editable grader's .pth is not read
    listed = subprocess.run([fresh / "bin" / "grader", "list"], capture_output=True, text=True, timeout=120,
                            cwd=bundle, env={**os.environ, "PYTHONPATH": dependencies})
    assert listed.returncode == 0, listed.stderr
    located = subprocess.run([python, "-c", "import grader; print(grader.__file__)"], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path, env={**os.environ, "PYTHONPATH": dependencies})
    assert located.stdout.startswith(str(fresh)), located.stdout + located.stderr
