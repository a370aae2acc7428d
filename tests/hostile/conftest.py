"""A throwaway course per test, with its scratch TMPDIR removed afterwards; each test runs twice: with the
standard library only, and with the data course's environment (numpy, pandas, matplotlib) in use."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DATA_COURSE
from tests.hostile.host import Course


@pytest.fixture(params=["stdlib", "environment"])
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Course]:
    environment = None
    if request.param == "environment":
        request.getfixturevalue("data_environment")  # built once per session
        environment = DATA_COURSE / "requirements.txt"
    made = Course(tmp_path, environment=environment)
    yield made
    made.remove()
