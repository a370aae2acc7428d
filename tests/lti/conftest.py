"""A real `grader serve` (tests/server/conftest.py's) with a platform registered, and the platform itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.batch.classroom import write_course
from tests.conftest import run_cli
from tests.lti.platform import Platform
from tests.server.conftest import Served


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    made = Platform().start()
    yield made
    made.stop()


@pytest.fixture(scope="module")
def tool(tmp_path_factory: pytest.TempPathFactory, platform: Platform) -> Iterator[Served]:
    """The server, as a tool the platform knows (plain HTTP on loopback: cookies without Secure); one per
    module: each test signs in people of its own."""
    tmp_path = tmp_path_factory.mktemp("tool")
    served = Served(tmp_path, tmp_path / "state", write_course(tmp_path))
    registered = run_cli("serve", "lti", "add-platform", "--state", served.state, *platform.registration())
    assert registered.returncode == 0, registered.stderr
    served.start("--insecure-cookies", "--workers", "1")
    platform.tool_url = served.url
    yield served
    served.stop()
