"""One `grader serve` for the page to work in: the server tests' course (add, shout, guess: its late cut-off
passed) and the variants' `shift` (x + k, k drawn per student), with students and an instructor. The
browser is the accessibility tests' Chromium (tests/a11y/conftest.py)."""

from __future__ import annotations

import re
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.a11y.conftest import DAY, chrome, stamp  # noqa: F401 - the browser, shared with the a11y tests
from tests.batch.classroom import write_course
from tests.server.conftest import CSRF, Answer, Served, signed_in
from tests.variants.test_variants import write_course as write_variants

MAX_UPLOAD_KIB = 64


@dataclass
class Site:
    served: Served
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.served.url

    def page(self, who: str, path: str) -> Answer:
        return self.served.call("GET", path, headers=signed_in(self.tokens[who]))

    def post(self, who: str, path: str, fields: dict[str, str], accept: str = "text/html", csrf: str = CSRF) -> Answer:
        """A form of the page, sent as the signed-in browser sends it (its cookies, its origin)."""
        headers = {**signed_in(self.tokens[who], csrf=CSRF), "Origin": self.url, "Accept": accept}
        body = urllib.parse.urlencode({"csrf": csrf, **fields}).encode()
        return self.served.call("POST", path, body=body, content_type="application/x-www-form-urlencoded",
                                headers=headers, follow=False)

    def k_of(self, who: str) -> int:
        """The student's variant of `shift`: the k its statement names."""
        found = re.search(r"returns x \+ (\d+)", self.page(who, "/exercises/shift").body)
        assert found, "no k in the statement"
        return int(found[1])


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("work")
    exercises = write_course(root)
    write_variants(root)
    (root / "grader-course.yaml").write_text(f"""\
rules:
  exercises:
    guess:
      deadline: {stamp(time.time() - 3 * DAY)}
      late: {{penalty: 10, per: day, cutoff: {stamp(time.time() - DAY)}}}
""")
    served = Served(root, root / "state", exercises)
    made = Site(served)
    for name in ("alice", "bob", "carol", "dan", "erin"):
        made.tokens[name] = served.token(name)
    made.tokens["prof"] = served.token("prof", staff=True)
    served.start("--workers", "1", "--insecure-cookies", "--max-upload", str(MAX_UPLOAD_KIB))
    yield made
    served.stop()


def solution(k: int) -> str:
    return f"def shift(x):\n    return x + {k}\n"


def text_of(html: str) -> str:
    import html as markup

    return markup.unescape(re.sub(r"<[^>]+>", "", html))


def textarea_of(html: str) -> str:
    import html as markup

    found = re.search(r'<textarea id="code"[^>]*>(.*?)</textarea>', html, re.DOTALL)
    assert found, "no editor's textarea on the page"
    return markup.unescape(found[1]).removeprefix("\n")  # the one newline HTML drops


def base_of(html: str) -> int:
    found = re.search(r'name="base" value="(\d+)"', html)
    assert found
    return int(found[1])
