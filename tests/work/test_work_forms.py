"""The page to work in, as plain forms (what a browser without script sends, and what work.js sends too):
the page holds the statement and the starter code of the student's own variant; "Run the visible tests"
grades the text by the same engine on their variant, shows the visible tests only and stores nothing; a
save is a draft with a receipt, refused (never written over) when another page saved meanwhile; a hand-in
of the text is a submission like a file's. Every bad form is a 4xx with a reason."""

from __future__ import annotations

import hashlib
import re

import pytest

from grader.server.assets import EDITOR, EDITOR_FOLDER, VENDOR, manifest
from tests.server.conftest import ADD
from tests.work.conftest import (
    MAX_UPLOAD_KIB,
    Site,
    base_of,
    solution,
    text_of,
    textarea_of,
)


def submissions_of(site: Site, who: str) -> list[dict]:
    answer = site.served.call("GET", "/api/submissions", site.tokens[who])
    assert answer.status == 200, answer.body
    return answer.body["submissions"] if isinstance(answer.body, dict) else answer.body


# ---------------------------------------------------------------- the page and its editor
def test_the_vendored_editor_is_the_manifests_files_and_only_those_are_served(site: Site) -> None:
    listed = manifest()
    assert (listed["name"], listed["version"]) == ("codemirror", "5.65.21") == (EDITOR.name, EDITOR.version)
    assert str(listed["integrity"]).startswith("sha512-")
    folder = VENDOR / EDITOR_FOLDER
    on_disk = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.name != "MANIFEST.json")
    assert on_disk == sorted(listed["files"]), "a vendored file that the manifest does not list, or one missing"
    for name, digest in listed["files"].items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, f"{name} is not the file npm shipped"
    for script in EDITOR.scripts:
        served = site.served.call("GET", script)
        assert served.status == 200 and served.headers["content-type"].startswith("text/javascript")
        assert served.headers["x-content-type-options"] == "nosniff"
    served = site.served.call("GET", f"/static/vendor/{EDITOR_FOLDER}/lib/codemirror.js").body
    assert hashlib.sha256(served.encode()).hexdigest() == listed["files"]["lib/codemirror.js"]
    for path in (f"{EDITOR_FOLDER}/MANIFEST.json", f"{EDITOR_FOLDER}/LICENSE", f"{EDITOR_FOLDER}/../../work.js",
                 f"{EDITOR_FOLDER}/lib/%2e%2e/lib/codemirror.js", "codemirror-5.0.0/lib/codemirror.js", "", "%00"):
        assert site.served.call("GET", f"/static/vendor/{path}").status == 404, path


def test_the_page_holds_the_students_variant_and_its_starter_code_in_a_form_that_needs_no_script(site: Site) -> None:
    k = site.k_of("alice")
    page = site.page("alice", "/exercises/shift").body
    assert f"x + {k}" in text_of(page)  # the statement of her variant
    assert textarea_of(page) == f"def shift(x):\n    return x  # add {k}\n"  # its starter code
    assert re.search(r"for your variant, [0-9a-f]{6,}", text_of(page))
    assert '<form id="work" method="post" action="/exercises/shift/hand-in"' in page
    for button in ('id="run" formaction="/exercises/shift/run"', 'id="save" formaction="/exercises/shift/draft"',
                   'id="hand-in"'):
        assert button in page
    # The editor's stylesheet is in the page: the CSP (script-src 'self', no style file) stays as it was.
    assert ".CodeMirror" in page and "<link" not in page
    assert "script-src 'self';" in site.page("alice", "/exercises/shift").headers["content-security-policy"]


# ---------------------------------------------------------------- runs of the visible tests
def test_a_run_grades_the_visible_tests_of_the_callers_own_variant_and_stores_nothing(site: Site) -> None:
    k, others = site.k_of("alice"), site.k_of("bob")
    before = len(submissions_of(site, "alice"))
    right = site.post("alice", "/exercises/shift/run", {"code": solution(k), "base": "0"})
    assert right.status == 200, text_of(right.body)[:500]
    shown = text_of(right.body)
    assert "Verdict: passed · Score 1/1 on the visible tests" in shown
    assert textarea_of(right.body) == solution(k)  # the text run stays in the editor
    assert "data-unsaved" in right.body  # and, no draft holding it, the page's script saves it at once
    for hidden in ("hidden one", "shift(40)", str(40 + k)):  # the hidden test: not its name, call or answer
        assert hidden not in shown, hidden
    assert len(submissions_of(site, "alice")) == before  # a run is no submission

    if others != k:  # bob's variant's answer, sent by alice, however the form names him: wrong on hers
        copied = site.post("alice", "/exercises/shift/run", {"code": solution(others), "base": "0",
                                                             "student": "bob", "variant": "bob"})
        assert copied.status == 200 and "Verdict: wrong_answer" in text_of(copied.body)
        assert f"expected {1 + k}, got {1 + others}" in text_of(copied.body)

    broken = site.post("alice", "/exercises/shift/run", {"code": "def shift(x:\n", "base": "0"})
    assert broken.status == 200 and "syntax" in text_of(broken.body).lower()


@pytest.mark.parametrize(("fields", "status", "reason"), [
    ({"base": "0"}, 422, "the text of the work"),
    ({"code": "x = 1\n", "base": "one"}, 422, "a whole number"),
    ({"code": "x = 1\n", "base": "9" * 40}, 422, "a whole number"),
    ({"code": "x = 1\n", "base": "-1"}, 422, "a whole number"),
    ({"code": "x = '\0'\n", "base": "0"}, 422, "NUL"),
    ({"code": "x" * (MAX_UPLOAD_KIB * 1024 + 10), "base": "0"}, 413, "at most"),
], ids=["no code", "a base that is no number", "a huge base", "a negative base", "a NUL", "over the upload limit"])
def test_a_bad_form_is_refused_with_its_reason_by_every_button(site: Site, fields: dict[str, str], status: int,
                                                                reason: str) -> None:
    for button in ("run", "draft", "hand-in"):
        answer = site.post("dan", f"/exercises/shift/{button}", fields)
        assert answer.status == status and reason in text_of(answer.body), (button, answer.status, answer.body[:300])


def test_a_forged_form_an_unknown_exercise_and_another_site_are_refused(site: Site) -> None:
    for button in ("run", "draft", "hand-in"):
        forged = site.post("dan", f"/exercises/shift/{button}", {"code": "x = 1\n", "base": "0"}, csrf="forged")
        assert forged.status == 403 and "stale or not from this site" in text_of(forged.body)
        unknown = site.post("dan", f"/exercises/no-such/{button}", {"code": "x = 1\n", "base": "0"})
        assert unknown.status == 404
        elsewhere = site.served.call("POST", f"/exercises/shift/{button}", body=b"csrf=a&code=x&base=0",
                                     content_type="application/x-www-form-urlencoded",
                                     headers={"Cookie": f"grader_session={site.tokens['dan']}; grader_csrf=a",
                                              "Origin": "https://elsewhere.example"}, follow=False)
        assert elsewhere.status == 403
        signed_out = site.served.call("POST", f"/exercises/shift/{button}", body=b"csrf=a&code=x&base=0",
                                      content_type="application/x-www-form-urlencoded", follow=False)
        assert signed_out.status == 401
    odd = site.post("dan", "/exercises/shift/run", {"code": "s = 'é\u202e\U0001f600'\n", "base": "0"})
    assert odd.status == 200 and "Verdict:" in text_of(odd.body)


def test_runs_are_rate_limited_per_student(site: Site) -> None:
    cheap = {"code": "def shift(x:\n", "base": "0"}  # a syntax error: refused before any test runs
    for _ in range(10):
        assert site.post("erin", "/exercises/shift/run", cheap).status == 200
    refused = site.post("erin", "/exercises/shift/run", {"code": "# mine\n", "base": "0"})
    assert refused.status == 429 and int(refused.headers["retry-after"]) >= 1
    assert "at most 10 runs of the visible tests a minute" in text_of(refused.body)
    assert textarea_of(refused.body) == "# mine\n"  # the text is kept
    assert site.post("carol", "/exercises/shift/run", cheap).status == 200  # another student's runs: their own


# ---------------------------------------------------------------- drafts
def test_a_save_answers_with_a_receipt_and_a_stale_one_is_refused_with_the_draft_kept(site: Site) -> None:
    first = site.post("bob", "/exercises/add/draft", {"code": "def add(a, b):\n", "base": "0"}, "application/json")
    assert first.status == 200 and first.body["receipt"]["revision"] == 1
    assert first.body["receipt"]["sha256"] == hashlib.sha256(b"def add(a, b):\n").hexdigest()
    other_tab = site.post("bob", "/exercises/add/draft", {"code": "# another tab\n", "base": "0"}, "application/json")
    assert other_tab.status == 409 and other_tab.body["current"]["code"] == "def add(a, b):\n"

    plain = site.post("bob", "/exercises/add/draft", {"code": ADD, "base": "1"})  # a form without script
    assert plain.status == 303 and plain.headers["location"] == "/exercises/add#saved"
    page = site.page("bob", "/exercises/add").body
    assert textarea_of(page) == ADD and base_of(page) == 2 and "Saved: revision 2" in text_of(page)
    assert "data-unsaved" not in page

    stale = site.post("bob", "/exercises/add/draft", {"code": "# typed in an old tab\n", "base": "1"})
    assert stale.status == 409
    shown = text_of(stale.body)
    assert "Another page saved this exercise meanwhile (revision 2" in shown and ADD.strip() in shown
    assert textarea_of(stale.body) == "# typed in an old tab\n" and base_of(stale.body) == 2  # kept, now on rev 2
    assert "data-unsaved" not in stale.body  # not saved over the other page's by script either: the student picks
    again = site.post("bob", "/exercises/add/draft", {"code": textarea_of(stale.body), "base": "2"})
    assert again.status == 303  # saving again keeps it: the student chose, nothing was written over unasked
    assert textarea_of(site.page("bob", "/exercises/add").body) == "# typed in an old tab\n"
    api = site.served.call("GET", "/api/drafts/add", site.tokens["bob"])  # the API reads the same draft
    assert api.status == 200 and api.body["revision"] == 3


# ---------------------------------------------------------------- hand in
def test_a_hand_in_of_the_text_is_a_submission_graded_like_a_file(site: Site) -> None:
    crlf = ADD.replace("\n", "\r\n")  # as a browser sends a textarea's lines
    handed = site.post("carol", "/exercises/add/hand-in", {"code": crlf, "base": "0"})
    assert handed.status == 303 and re.fullmatch(r"/submissions/\d+", handed.headers["location"])
    number = int(handed.headers["location"].rsplit("/", 1)[1])
    graded = site.served.wait(site.tokens["carol"], number)
    assert graded["report"]["verdict"] == "passed" and graded["file"] == "add.py"
    submission = site.served.call("GET", f"/submissions/{number}", headers={"Cookie": (
        f"grader_session={site.tokens['carol']}")})
    assert "Verdict: passed" in text_of(submission.body)


def test_a_hand_in_after_the_cut_off_is_refused_with_the_text_kept(site: Site) -> None:
    refused = site.post("carol", "/exercises/guess/hand-in", {"code": "42\n", "base": "0"})
    assert refused.status == 403 and "late cut-off for guess has passed" in text_of(refused.body)
    assert textarea_of(refused.body) == "42\n" and 'id="hand-in"' not in refused.body


def test_the_runs_answer_is_the_page_and_no_json_leaks_a_hidden_test(site: Site) -> None:
    """work.js takes the run's part of the page; nothing else of the grading (staff details, the hidden
    test's expected value) is anywhere in the answer, for staff either (a run is the student's view)."""
    k = site.k_of("prof")
    answer = site.post("prof", "/exercises/shift/run", {"code": "def shift(x):\n    return 0\n", "base": "0"})
    assert answer.status == 200
    assert "hidden one" not in answer.body and "shift(40)" not in answer.body and str(40 + k) not in answer.body
    assert "staff only" not in answer.body
