"""The opt-in Moodle test's site folder must be reachable by PostgreSQL's own user, which is never root."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.lti.moodle.site import default_home


def test_a_home_other_users_cannot_enter_puts_the_site_under_var_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "root-home"
    (home / ".cache").mkdir(parents=True)
    home.chmod(0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    assert default_home(tmp_path / "moodle-src").parent == Path("/var/tmp/grader-moodle")


def test_a_cache_every_user_can_walk_to_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as made:
        cache = Path(made) / "cache"
        cache.mkdir()
        Path(made).chmod(0o755)
        monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
        assert default_home(Path(made) / "moodle-src").parent == cache / "grader-moodle"
