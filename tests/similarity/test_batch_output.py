"""The similarity report written from a batch's gradebook: the files the batch graded, compared."""

from __future__ import annotations

from pathlib import Path

from grader.gradebook import Gradebook
from grader.batch.store import Store
from grader.course import Course
from grader.similarity import batch_output
from tests.conftest import run_cli
from tests.similarity.classroom import INDEPENDENT, PLANTED, write_class
from tests.similarity.page import page


def test_a_batch_gradebook_gives_the_same_ranking_as_grader_similar(tmp_path: Path) -> None:
    students = {name: PLANTED[name] for name in ("original", "renamed")} | {"stack": INDEPENDENT["stack"]}
    root = write_class(tmp_path / "class", students)
    graded = run_cli("batch", root, "--out", tmp_path / "out", "--outputs", "json", "--workers", "2")
    assert graded.returncode == 0, graded.stderr
    store = Store(tmp_path / "out" / "results.sqlite")
    try:
        book = Gradebook.load(store)
    finally:
        store.close()
    written = batch_output.write(book, tmp_path / "out", submissions=root,
                                 exercises=Course.at(None).load_all(["count-queens"], as_written=True))
    assert written == [tmp_path / "out" / "similarity" / "index.html"]
    rows = page(written[0]).rows["pairs"][1:]
    alone = run_cli("similar", root, "--format", "json").json()["pairs"]
    assert [(row[2], row[3]) for row in rows if row[4] != "0%"] == [(p["a"], p["b"]) for p in alone]
    assert rows[0][2:5] == ["original", "renamed", "100%"]


def test_batch_writes_the_similarity_report_when_asked_and_not_by_default(tmp_path: Path) -> None:
    root = write_class(tmp_path / "class", {name: PLANTED[name] for name in ("original", "renamed")})
    asked = run_cli("batch", root, "--out", tmp_path / "asked", "--outputs", "json,similarity", "--workers", "2")
    assert asked.returncode == 0, asked.stderr
    assert (tmp_path / "asked" / "similarity" / "index.html").is_file()
    plain = run_cli("batch", root, "--out", tmp_path / "plain", "--workers", "2")
    assert plain.returncode == 0, plain.stderr
    assert not (tmp_path / "plain" / "similarity").exists()
