"""What the comparison finds in a class: planted copies rank above independent solutions, and neither the
starter code nor the references make two files alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.batch.discover import NameRule, discover
from grader.course import Course
from grader.similarity.analysis import Similarity, analyse
from grader.similarity.compare import compare, document
from tests.similarity.classroom import INDEPENDENT, PLANTED, write_class
from tests.similarity.starter import BODIES, STARTER, with_body, write_course


def similarity_of(root: Path, exercises_dir: Path | None = None) -> Similarity:
    exercises = Course.at(exercises_dir).load_all(as_written=True) if exercises_dir else \
        Course.at(None).load_all(["count-queens"], as_written=True)
    return analyse(discover(root, exercises, NameRule()), exercises)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Similarity:
    return similarity_of(write_class(tmp_path_factory.mktemp("planted"), {**PLANTED, **INDEPENDENT}))


def is_planted(a: str, b: str) -> bool:
    return a in PLANTED and b in PLANTED


def test_every_planted_pair_ranks_above_every_other_pair(planted: Similarity) -> None:
    ranked = [(p.a.student, p.b.student) for p in planted.pairs]
    count = len(PLANTED) * (len(PLANTED) - 1) // 2
    assert all(is_planted(a, b) for a, b in ranked[:count]), ranked[:count]
    planted_scores = [p.score for p in planted.pairs if is_planted(p.a.student, p.b.student)]
    other_scores = [p.score for p in planted.pairs if not is_planted(p.a.student, p.b.student)]
    assert min(planted_scores) > max(other_scores)


def test_renaming_and_recommenting_leave_the_same_code(planted: Similarity) -> None:
    scores = {frozenset((p.a.student, p.b.student)): p.score for p in planted.pairs}
    assert scores[frozenset(("original", "renamed"))] == 1.0
    assert scores[frozenset(("original", "recommented"))] == 1.0


def test_the_planted_copies_form_one_group_and_the_independent_solutions_none(planted: Similarity) -> None:
    assert [group.students for group in planted.groups] == [tuple(sorted(PLANTED))]


def test_scores_lie_between_0_and_1_highest_first(planted: Similarity) -> None:
    scores = [p.score for p in planted.pairs]
    assert all(0 <= s <= 1 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert len(scores) == len(planted.pairs) == 45  # every pair of the ten students, once


def test_a_copy_shows_its_regions_in_both_files(planted: Similarity) -> None:
    pair = next(p for p in planted.pairs if {p.a.student, p.b.student} == {"original", "reordered"})
    # Reordered functions keep their own offsets: more than one region, and they cross over.
    assert len(pair.regions) >= 2
    original_first = {r.a_lines[0] if pair.a.student == "original" else r.b_lines[0] for r in pair.regions}
    assert min(original_first) <= 6 < max(original_first)


def test_the_starter_code_alone_makes_no_two_files_alike(tmp_path: Path) -> None:
    exercises = write_course(tmp_path / "course")
    root = write_class(tmp_path / "class", {name: with_body(body) for name, body in BODIES.items()},
                       name="tally-words.py")
    [pair] = similarity_of(root, exercises).pairs
    assert pair.score < 0.1, pair.score
    # Not because the two are far apart anyway: with nothing subtracted, the starter makes them close.
    unsubtracted = [document(name, "tally-words.py", with_body(body), set()) for name, body in BODIES.items()]
    assert compare("tally-words", *unsubtracted).score > 0.5


def test_a_file_that_is_only_the_starter_is_like_no_one(tmp_path: Path) -> None:
    exercises = write_course(tmp_path / "course")
    root = write_class(tmp_path / "class", {"untouched": STARTER, "also_untouched": STARTER},
                       name="tally-words.py")
    [pair] = similarity_of(root, exercises).pairs
    assert pair.score == 0.0


def test_two_students_who_copy_the_reference_are_not_flagged_for_it(tmp_path: Path) -> None:
    reference = (Path(__file__).resolve().parents[2] / "reference" / "count-queens" / "accepted" /
                 "plain_sets.py").read_text()
    root = write_class(tmp_path / "class", {"one": reference, "two": reference.replace("count", "ways")})
    [pair] = similarity_of(root).pairs
    assert pair.score == 0.0


def test_a_broken_or_undecodable_file_is_compared_without_a_traceback(tmp_path: Path) -> None:
    root = write_class(tmp_path / "class", {"broken": PLANTED["original"] + "\ndef oops(:\n    '''unclosed\n",
                                            "copy": PLANTED["renamed"]})
    (root / "binary").mkdir()
    (root / "binary" / "count-queens.py").write_bytes(b"\xff\xfe\x00def \x80\x81(")
    scores = {frozenset((p.a.student, p.b.student)): p.score for p in similarity_of(root).pairs}
    assert scores[frozenset(("broken", "copy"))] > 0.8
    assert scores[frozenset(("binary", "copy"))] == 0.0
