"""Where course environments live, which every sandbox may read: the sandbox's side of grader/environment.py
(which builds them), kept here so that the sandbox imports nothing above it."""

from __future__ import annotations

import os
from pathlib import Path

ROOT_VARIABLE = "GRADER_ENV_DIR"


def environments_root() -> Path:
    """Where environments are built: $GRADER_ENV_DIR; as root /var/cache/grader/environments (the sandbox's
    uid can traverse it: root's own home cannot be); else beside the user's cache folder."""
    if os.environ.get(ROOT_VARIABLE):
        return Path(os.environ[ROOT_VARIABLE])
    if os.geteuid() == 0:
        return Path("/var/cache/grader/environments")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "grader-environments"


def readable_environments() -> tuple[str, ...]:
    """What the jail lets every sandbox read besides the system folders: the environments' folder, when
    there is one (packages from the index, written by the grader only; nothing of a course's own)."""
    root = environments_root()
    return (str(root),) if root.is_dir() else ()
