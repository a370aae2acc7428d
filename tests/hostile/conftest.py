"""A throwaway course per test, with its scratch TMPDIR removed afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.host import Course


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Course]:
    made = Course(tmp_path)
    yield made
    made.remove()
