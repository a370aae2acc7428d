"""GET /api/submissions/ID?wait=S answers when the submission changes, or with its status when S seconds
pass with no change, on every Python the package claims: before 3.11 asyncio's timeout is not the builtin
TimeoutError, and a wait that timed out was a 500."""

from __future__ import annotations

import asyncio

from grader.server.web import Changes
from tests.server.conftest import Served

SLOW = "import time\ntime.sleep(3)\n\n\ndef add(a, b):\n    return a + b\n"  # 15 times the wait below


def test_a_wait_with_no_change_in_time_ends_quietly() -> None:
    asyncio.run(Changes().wait(1, 0.01))


def test_a_wait_ends_as_soon_as_its_submission_changes() -> None:
    async def waited() -> None:
        changes = Changes()
        waiting = asyncio.ensure_future(changes.wait(7, 600))
        await asyncio.sleep(0)  # it waits now
        changes.changed(7)
        await asyncio.wait_for(waiting, 600)

    asyncio.run(waited())


def test_a_request_waiting_on_a_submission_that_does_not_change_in_time_gets_its_status(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    number = served.submit(alice, "add", SLOW).body["id"]
    answer = served.call("GET", f"/api/submissions/{number}?wait=0.2", alice)
    assert answer.status == 200 and answer.body["status"] in ("queued", "running"), answer
    assert served.wait(alice, number)["status"] == "done"
    assert "Traceback" not in served.errors.read_text()
