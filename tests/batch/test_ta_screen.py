"""What a TA sees of a batch: a progress line that fits any terminal, an honest ETA, a summary of one row per
exercise, and class and student pages that say verdicts in words and show the student's code."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from grader.gradebook import Gradebook
from grader.batch.progress import BatchProgress, Snapshot, progress_line
from grader.batch.store import Store
from grader.batch.summary import summary
from grader.model import Verdict
from grader.outputs.html import HtmlPages
from tests.batch.conftest import GradedClass, batch
from tests.batch.test_outputs import page
from tests.conftest import run_cli

WIDTHS = (20, 40, 60, 80, 110, 200)
EVERY_VERDICT = Counter({verdict: 1000 + rank for rank, verdict in enumerate(Verdict)})
STATES = {
    "before the first result": Snapshot(total=48, done=4, reused=4, counts=Counter({Verdict.MISSING: 4}),
                                        elapsed=3.0),
    "half way, every verdict seen": Snapshot(total=99999, done=sum(EVERY_VERDICT.values()), reused=0,
                                             counts=EVERY_VERDICT, elapsed=4000.0),
    "done": Snapshot(total=48, done=48, reused=0, counts=Counter({Verdict.PASSED: 40, Verdict.TIMEOUT: 8}),
                     elapsed=16.2),
}


def rendered(renderable: object, width: int) -> list[str]:
    console = Console(width=width, file=StringIO(), color_system=None, highlight=False, emoji=False)
    console.print(renderable, soft_wrap=False)
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


# ---------------------------------------------------------------- the progress line
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("state", STATES, ids=str)
def test_the_progress_line_is_one_line_no_wider_than_the_terminal(width: int, state: str) -> None:
    snapshot = STATES[state]
    view = BatchProgress(Console(file=StringIO()), snapshot.total, snapshot.reused, Counter(snapshot.counts))
    lines = rendered(progress_line(snapshot, width), width)
    assert len(lines) == 1 and len(lines[0]) <= width, lines
    view_lines = rendered(view, width)
    assert len(view_lines) == 1 and len(view_lines[0]) <= width, view_lines


def test_a_wide_terminal_shows_every_count_and_a_narrow_one_sums_them_up() -> None:
    state = STATES["half way, every verdict seen"]
    wide, narrow = progress_line(state, 260).plain, progress_line(state, 80).plain
    assert "grading" in wide and "elapsed" in wide and "TIMEOUT 1004" in wide and "MISSING 1001" in wide
    others = sum(EVERY_VERDICT.values()) - EVERY_VERDICT[Verdict.PASSED]
    assert f"PASS {EVERY_VERDICT[Verdict.PASSED]}  OTHER {others}" in narrow
    assert re.search(r"\d+/99999", progress_line(state, 20).plain)  # the count is the last thing to go


def test_the_eta_is_unknown_before_the_first_result_of_this_run() -> None:
    assert STATES["before the first result"].eta() == "ETA unknown"  # the reused 4 give no rate
    assert STATES["done"].eta() == "done"


def test_the_eta_grows_while_running_jobs_finish_nothing() -> None:
    """Eight results came in the first 8 s; then timeouts run and nothing arrives: the ETA is worked out from
    the current time, so it grows instead of standing at the estimate of the last result."""
    def at(elapsed: float) -> Snapshot:
        return Snapshot(total=48, done=8, reused=0, counts=Counter({Verdict.PASSED: 8}), elapsed=elapsed)

    assert at(8.0).eta() == "ETA 0:40"
    assert at(20.0).eta() == "ETA 1:40"
    assert at(80.0).eta() == "ETA 6:40"


def test_the_log_line_says_elapsed_time_and_eta(graded_class: GradedClass) -> None:
    last = [line for line in graded_class.result.stderr.splitlines() if line.startswith("graded ")][-1]
    assert re.match(r"graded 192/192 \d+\.\d/s  done in \d+:\d\d  PASS \d+", last), last


# ---------------------------------------------------------------- the end-of-batch summary
@pytest.fixture(scope="module")
def book(graded_class: GradedClass) -> Gradebook:
    store = Store(graded_class.out / "results.sqlite")
    try:
        return Gradebook.load(store)
    finally:
        store.close()


@pytest.mark.parametrize("per_test", [False, True])
@pytest.mark.parametrize("width", (60, 80, 110, 200))
def test_the_summary_fits_the_width(book: Gradebook, width: int, per_test: bool) -> None:
    lines = rendered(summary(book, per_test=per_test), width)
    assert max(map(len, lines)) <= width, [line for line in lines if len(line) > width]


def test_the_summary_has_one_row_per_exercise_and_the_per_test_table_only_on_request(book: Gradebook) -> None:
    short, long = "\n".join(rendered(summary(book), 110)), "\n".join(rendered(summary(book, per_test=True), 110))
    assert "Per exercise" in short and "Pass rate per test" not in short
    assert "Pass rate per test" in long
    rows = [line.split()[0] for line in short[short.index("Per exercise"):].splitlines()[3:6]]
    assert rows == ["add", "guess", "shout"]
    assert len(short.splitlines()) < 40 < len(long.splitlines())


def expected_failure(graded_class: GradedClass, exercise: str) -> tuple[str, int]:
    """The commonest verdict other than passed among those who handed the exercise in, from how the class
    was written (ties go to the worse verdict)."""
    verdicts = Counter(Verdict(answers[exercise].verdict) for answers in graded_class.chosen.values())
    del verdicts[Verdict.PASSED], verdicts[Verdict.MISSING]
    verdict = min(verdicts, key=lambda v: (-verdicts[v], v.severity))
    return verdict, verdicts[verdict]


def test_each_exercise_row_names_its_commonest_failure_with_its_count(graded_class: GradedClass,
                                                                     book: Gradebook) -> None:
    from grader.outputs.terminal import STYLE

    printed = rendered(summary(book), 200)
    for exercise in ("add", "shout", "guess"):
        verdict, count = expected_failure(graded_class, exercise)
        row = next(line for line in printed if line.split()[:1] == [exercise])
        handed_in = sum(1 for answers in graded_class.chosen.values() if answers[exercise].verdict != "missing")
        passed = sum(1 for answers in graded_class.chosen.values() if answers[exercise].verdict == "passed")
        assert f"{handed_in}/64" in row and f"{passed}/{handed_in}" in row
        assert f"{STYLE[verdict][0]} {count}" in row, row


def test_the_cli_summary_fits_the_columns_it_is_given(graded_class: GradedClass) -> None:
    result = run_cli("batch", graded_class.submissions, "--exercises", graded_class.exercises,
                     "--out", graded_class.out, "--per-test", env={"COLUMNS": "60"}, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Pass rate per test" in result.stdout
    printed = result.stdout[:result.stdout.index("wrote ")].splitlines()  # file paths are never cut
    assert max(map(len, printed)) <= 60


# ---------------------------------------------------------------- the pages
def test_the_class_page_has_a_per_exercise_summary_a_legend_and_verdict_words(graded_class: GradedClass) -> None:
    index = page(graded_class.out / "html" / "index.html")
    text = " ".join("".join(index.text).split())
    assert "Per exercise" in text and "commonest failure" in text
    assert "passed: every test passed" in text and "missing: no file handed in" in text  # the legend
    for exercise in ("add", "shout", "guess"):
        verdict, count = expected_failure(graded_class, exercise)
        assert f"{verdict.replace('_', ' ')} × {count}" in text
    gradebook = index.tables["gradebook"]
    words = Counter(cell.split(" ", 1)[1] for row in gradebook[1:] for cell in row[1:-1])
    expected = Counter(answers[e].verdict.replace("_", " ") for answers in graded_class.chosen.values()
                       for e in ("add", "guess", "shout"))
    assert words == expected  # every cell says its verdict, not only its colour


def student_with(graded_class: GradedClass, exercise: str, variant: str) -> str:
    return next(s for s, answers in graded_class.chosen.items() if answers[exercise].name == variant
                and not s.startswith(("<", "=")))


def code_lines(graded_class: GradedClass, student: str) -> str:
    return (graded_class.out / "html" / "students" / f"{student}.html").read_text(encoding="utf-8")


def test_a_student_page_shows_the_code_with_the_line_a_traceback_points_at(graded_class: GradedClass) -> None:
    student = student_with(graded_class, "add", "crash")
    html = code_lines(graded_class, student)
    # The file is "# N" then the raise: the traceback names line 2, and that line is marked in words too.
    assert re.search(r'<span class="line pointed" id="add-L2"><span class="no">error → 2</span>'
                     r"raise RuntimeError\(&#39;not today&#39;\)</span>", html)
    assert 'id="add-L1"><span class="no">1</span># ' in html


def test_a_syntax_error_marks_its_line(graded_class: GradedClass) -> None:
    html = code_lines(graded_class, student_with(graded_class, "add", "syntax"))
    assert re.search(r'class="line pointed" id="add-L2"><span class="no">error → 2</span>def add\(a, b\)<', html)


def test_the_code_is_escaped(graded_class: GradedClass) -> None:
    html = code_lines(graded_class, student_with(graded_class, "shout", "html"))
    assert "print(&#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;)" in html
    assert "<script>" not in html
    escapes = code_lines(graded_class, student_with(graded_class, "shout", "escape codes"))
    assert "\x1b" not in escapes and "\\x1b[31mRED" in escapes


def test_diffs_say_expected_and_got_in_neutral_colours(graded_class: GradedClass) -> None:
    base = (Path(__file__).parents[2] / "grader" / "outputs" / "html" / "batch_base.html.j2").read_text()
    html = code_lines(graded_class, student_with(graded_class, "shout", "html"))
    assert ('<span class="hunk">from line 1</span>\n<span class="del"><span class="mark">expected</span>HELLO</span>\n'
            '<span class="add"><span class="mark">got</span>&lt;script&gt;alert(1)&lt;/script&gt;</span>') in html
    assert "@@" not in html and "+++" not in html
    colours = re.search(r"pre \.del, \.side \.expected h4 \{ color: (#\w+); \} pre \.add, \.side \.got h4 "
                        r"\{ color: (#\w+); \}", base)
    assert colours is not None and colours.groups() == ("#0b4f9c", "#a04800")  # blue and orange


def test_code_outside_the_students_folder_or_over_the_cap_is_not_shown(tmp_path: Path) -> None:
    from tests.batch.classroom import write_course

    exercises = write_course(tmp_path)
    secret = tmp_path / "secret.py"
    secret.write_text("def add(a, b):\n    return a + b  # SECRET\n")
    (tmp_path / "class" / "linker").mkdir(parents=True)
    os.symlink(secret, tmp_path / "class" / "linker" / "add.py")
    (tmp_path / "class" / "long").mkdir()
    (tmp_path / "class" / "long" / "add.py").write_text("# padding\n" * 8000 + "def add(a, b):\n    return a + b\n")
    out = tmp_path / "out"
    result = batch(tmp_path / "class", "--exercises", exercises, "--out", out, "--workers", 1)
    assert result.returncode == 0, result.stderr
    linker = (out / "html" / "students" / "linker.html").read_text(encoding="utf-8")
    assert "SECRET" not in linker and 'class="code"' not in linker
    long = (out / "html" / "students" / "long.html").read_text(encoding="utf-8")
    assert "only the first 60,000 characters are shown" in long and "def add" not in long
    # Changed after grading: the page no longer shows it (its marked lines would be the wrong ones).
    (tmp_path / "class" / "long" / "add.py").write_text("def add(a, b):\n    return a + b  # CHANGED\n")
    store = Store(out / "results.sqlite")
    try:
        book = replace(Gradebook.load(store), submissions=tmp_path / "class")
    finally:
        store.close()
    HtmlPages().write(book, out)
    changed = (out / "html" / "students" / "long.html").read_text(encoding="utf-8")
    assert "CHANGED" not in changed and 'class="code"' not in changed
