"""`grader serve --cluster local:N`: the same gradings on a Dask cluster the server starts itself."""

from __future__ import annotations

import pytest

from tests.server.conftest import ADD, WRONG, Served

pytest.importorskip("distributed", reason="--cluster needs the dask extra: pip install 'yaml-grader[dask]'")


def test_a_server_grades_on_a_dask_cluster(served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--cluster", "local:1")
    assert served.call("GET", "/api/health", staff).body["workers"] == 1
    right, wrong = (served.submit(alice, "add", code).body["id"] for code in (ADD, WRONG))
    assert served.wait(alice, right, timeout=300)["report"]["verdict"] == "passed"
    assert served.wait(alice, wrong, timeout=300)["report"]["verdict"] == "wrong_answer"
