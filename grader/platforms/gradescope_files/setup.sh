#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image. It installs the grader from
# the wheel in this bundle (the package index is asked only for the grader's dependencies), puts `grader` on
# PATH, then validates the exercises here: the expected values are computed and the CPU limits measured on
# Gradescope's own machine, and kept in the image for every submission.
# For a test run elsewhere: GRADER_SOURCE, GRADER_VENV and GRADER_BIN move the paths, GRADER_SKIP_APT=1
# never calls apt-get.
set -euo pipefail

SOURCE="${GRADER_SOURCE:-/autograder/source}"
VENV="${GRADER_VENV:-/opt/grader}"
BIN="${GRADER_BIN:-/usr/local/bin}"

usable() {  # a Python 3.11 or newer that can make a venv (Debian splits ensurepip into python3.X-venv)
    command -v "$1" >/dev/null 2>&1 &&
        "$1" -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1
}
find_python() {
    for candidate in python3.13 python3.12 python3.11 python3; do
        if usable "$candidate"; then command -v "$candidate"; return 0; fi
    done
    return 1
}

PYTHON="$(find_python || true)"
if [ -z "$PYTHON" ] && [ -z "${GRADER_SKIP_APT:-}" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # Ubuntu 22.04 (Gradescope's default image) has Python 3.10 as python3, and 3.11 in universe; newer
    # images have a python3 that is recent enough and only lack its venv package.
    apt-get install -y python3.11 python3.11-venv || apt-get install -y python3 python3-venv
    PYTHON="$(find_python || true)"
fi
if [ -z "$PYTHON" ]; then
    echo "setup.sh: no Python 3.11 or newer with venv here" >&2
    exit 1
fi

"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$SOURCE"/dist/*.whl
mkdir -p "$BIN"
ln -sf "$VENV/bin/grader" "$BIN/grader"
"$BIN/grader" validate --exercises "$SOURCE/exercises"
