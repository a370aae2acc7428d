"""The hostile corpus of tests/hostile/submissions, submitted through the server, gets the verdicts
`grader check` gives it. `check --all`: a check stops at a student's first timeout to answer sooner, while
the server, like a batch, runs every test for the score."""

from __future__ import annotations

import re

from tests.hostile.conftest import hostile  # noqa: F401 - the fixture
from tests.hostile.host import SUBMISSIONS, Course, verdicts
from tests.server.conftest import Served

ATTACK = "  - name: attack\n    call: attack()\n    expect: 0\n"


def test_the_hostile_corpus_gets_the_same_verdicts_through_the_server_as_through_check(served: Served,
                                                                                        hostile: Course) -> None:
    hostile.exercise(ATTACK)
    served.exercises = hostile.root / "exercises"
    names = sorted(p.name for p in SUBMISSIONS.glob("*.py") if not re.search(r"\{[a-z_]+\}", p.read_text()))
    assert len(names) >= 10
    student = served.token("alice")
    served.start("--workers", "2")
    sent = {name: served.submit(student, "hostile", (SUBMISSIONS / name).read_bytes(), name="hostile.py")
            for name in names}
    assert all(answer.status == 202 for answer in sent.values()), sent
    for name in names:
        graded = served.wait(student, sent[name].body["id"], timeout=300)
        assert graded["status"] == "done", (name, graded)
        through_server = {t["name"]: t["verdict"] for t in graded["report"]["tests"]}
        checked = verdicts(hostile.check((SUBMISSIONS / name).read_text(), "--all", timeout=120))
        assert through_server == checked, name
