"""A real batch over a generated class of 64 students (correct, wrong, slow, crashing, binary and missing
files, identical hand-ins, hostile folder names): the gradebook holds exactly the scores they earn."""

from __future__ import annotations

from collections import Counter
from importlib.metadata import version

from grader.platforms import DISTRIBUTION
from tests.batch.classroom import expected_gradebook
from tests.batch.conftest import GradedClass


def test_the_gradebook_has_a_column_per_exercise_id_then_the_total(graded_class: GradedClass) -> None:
    header = (graded_class.out / "gradebook.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "student,add,guess,shout,total"


def test_every_student_gets_the_points_their_files_earn(graded_class: GradedClass) -> None:
    expected = expected_gradebook(graded_class.chosen)
    rows = {row["student"].removeprefix("'"): row for row in graded_class.gradebook()}
    assert len(rows) == len(expected) == 64
    for student, scores in expected.items():
        assert {column: float(rows[student][column]) for column in scores} == scores, student


def test_every_submission_gets_the_verdict_its_variant_was_written_for(graded_class: GradedClass) -> None:
    found = {(student, exercise): verdict for student, exercise, verdict in graded_class.db().execute(
        "SELECT s.student, s.exercise, g.verdict FROM submissions s JOIN gradings g "
        "USING (submission_hash, exercise_hash, grader_version, run_all)")}
    expected = {(student, exercise): variant.verdict
                for student, answers in graded_class.chosen.items() for exercise, variant in answers.items()}
    assert found.keys() == expected.keys()
    wrong = {key: (found[key], graded_class.chosen[key[0]][key[1]].name, feedback(graded_class, *key))
             for key in found if found[key] != expected[key]}
    assert wrong == {}
    assert set(found.values()) >= {"passed", "wrong_answer", "timeout", "runtime_error", "syntax_error", "missing"}


def test_a_missing_file_is_a_zero_with_verdict_missing_not_an_error(graded_class: GradedClass) -> None:
    rows = graded_class.db().execute(
        "SELECT DISTINCT verdict, points, feedback FROM results WHERE file IS NULL").fetchall()
    assert {(verdict, points) for verdict, points, _ in rows} == {("missing", 0.0)}
    assert all("no add.py" in feedback or "no shout.py" in feedback or "no guess.txt" in feedback
               for _, _, feedback in rows)


def test_a_binary_file_gets_a_clear_runtime_error(graded_class: GradedClass) -> None:
    feedback = {f for (f,) in graded_class.db().execute(
        "SELECT DISTINCT feedback FROM results WHERE exercise = 'shout' AND verdict = 'runtime_error'")}
    assert "the file is binary, not Python text" in feedback


def test_the_database_holds_one_row_per_submission_and_test_with_its_hashes_and_grader_version(
        graded_class: GradedClass) -> None:
    db = graded_class.db()
    tests = {"add": 4, "shout": 2, "guess": 1}
    rows = db.execute("SELECT student, exercise, test, submission_hash, exercise_hash, grader_version "
                      "FROM results").fetchall()
    assert len(rows) == 64 * sum(tests.values())
    assert len({(student, exercise, test) for student, exercise, test, *_ in rows}) == len(rows)
    assert all(len(s) == 64 or s == "missing" or ":" in s for _, _, _, s, _, _ in rows)  # sha256 hex digests
    assert {len(e) for *_, e, _ in rows} == {64}
    assert {g for *_, g in rows} == {version(DISTRIBUTION)}
    outcomes = db.execute("SELECT COUNT(*), COUNT(DISTINCT submission_hash || exercise_hash || position) "
                          "FROM outcomes").fetchone()
    assert outcomes[0] == outcomes[1]


def test_identical_submissions_are_graded_once(graded_class: GradedClass) -> None:
    db = graded_class.db()
    shared = db.execute("SELECT submission_hash, exercise, COUNT(*) FROM submissions "
                        "WHERE submission_hash != 'missing' GROUP BY submission_hash, exercise "
                        "HAVING COUNT(*) > 1").fetchall()
    assert shared, "the class has students who handed in the very same file"
    distinct = db.execute("SELECT COUNT(DISTINCT submission_hash || exercise_hash) FROM submissions").fetchone()[0]
    gradings = db.execute("SELECT COUNT(*) FROM gradings").fetchone()[0]
    assert gradings == distinct < 64 * 3


def test_the_summary_shows_distribution_exercises_and_slowest_submissions(graded_class: GradedClass) -> None:
    printed = graded_class.result.stdout
    for heading in ("Score distribution", "Per exercise", "Slowest submissions"):
        assert heading in printed
    slowest = printed[printed.index("Slowest submissions"):]
    assert "TIMEOUT" in slowest.splitlines()[3]  # the slow variant tops the list
    assert "192 submissions: 0 already in the database, 192 graded now" in " ".join(printed.split())


def test_progress_is_logged_with_verdict_counts_when_not_in_a_terminal(graded_class: GradedClass) -> None:
    lines = [line for line in graded_class.result.stderr.splitlines() if line.startswith("graded ")]
    assert lines[-1].startswith("graded 192/192")
    counts = Counter(v.verdict for answers in graded_class.chosen.values() for v in answers.values())
    assert f"PASS {counts['passed']}" in lines[-1] and f"MISSING {counts['missing']}" in lines[-1]


def feedback(graded_class: GradedClass, student: str, exercise: str) -> list[str]:
    return [f"{test}: {verdict}: {text}" for test, verdict, text in graded_class.db().execute(
        "SELECT test, verdict, feedback FROM results WHERE student = ? AND exercise = ?", (student, exercise))]
