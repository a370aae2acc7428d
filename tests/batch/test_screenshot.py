"""The pages in a real browser: headless Chromium (Debian's package, installed here when missing) takes a
screenshot, and its pixels show the histogram's bars above the per-exercise summary above the gradebook
table, and on a student's page the code with the line a traceback points at."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.batch.conftest import GradedClass
from tests.batch.png import read_png, where
from tests.batch.test_outputs import Page

HISTOGRAM_BARS = (0xE6, 0x61, 0x01)  # fill of the histogram's bars in batch_class.html.j2
PASS_RATE_BARS = (0x5E, 0x3C, 0x99)
TABLE_HEADER = (0x1B, 0x49, 0x65)  # background of the gradebook's header row
PASSED_CELL = (0xDC, 0xF1, 0xDC)  # background of a cell whose exercise passed
POINTED_LINE = (0xFF, 0xF1, 0xA8)  # background of a code line an error points at
CODE = (0xF4, 0xF6, 0xF8)  # background of a pre: the code, a traceback


def chromium_program() -> str:
    """Debian's Chromium: found, or installed from the system's packages when the tests run as root (a fresh
    machine has none); otherwise the test fails saying how to install it."""
    program = shutil.which("chromium")
    if program is None and os.geteuid() == 0 and shutil.which("apt-get"):
        with open("/tmp/grader-tests-chromium.lock", "w") as lock:  # one install for parallel test runs
            fcntl.flock(lock, fcntl.LOCK_EX)
            if shutil.which("chromium") is None:
                env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
                subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600)
                subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, capture_output=True,
                               timeout=1200)
        program = shutil.which("chromium")
    if program is None:
        pytest.fail("chromium is not installed and could not be: apt-get install chromium")
    return program


def chromium(url: str, profile: Path, *action: str, size: tuple[int, int] = (1200, 900)) -> str:
    """Run headless Chromium on a page with one action (--screenshot=..., --dump-dom); its standard output."""
    program = chromium_program()
    command = [program, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}", *action, url]
    # A session of its own, so that a hung browser is killed with every helper process it started.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        output, errors = process.communicate(timeout=120)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # helpers that outlived the browser, or a hung one
        except ProcessLookupError:
            pass
        process.wait()
    assert process.returncode == 0, errors.decode(errors="replace")[-2000:]
    return output.decode()


def test_the_class_page_shows_the_histogram_above_the_table_in_chromium(graded_class: GradedClass,
                                                                         tmp_path: Path) -> None:
    png = tmp_path / "class.png"
    # A laptop's screen in portrait: the histogram, the exercises and the top of the gradebook.
    chromium((graded_class.out / "html" / "index.html").resolve().as_uri(), tmp_path / "profile",
             f"--screenshot={png}", size=(1200, 1300))
    width, height, rows = read_png(png)
    assert (width, height) == (1200, 1300)
    bars, header, rates = where(rows, HISTOGRAM_BARS), where(rows, TABLE_HEADER), where(rows, PASS_RATE_BARS)
    assert len(bars) > 2000, "the histogram's bars are not on screen"
    assert len(header) > 5000, "the gradebook table's header is not on screen"
    assert len(where(rows, PASSED_CELL)) > 5000, "the gradebook's cells are not on screen"
    assert len(rates) > 1000, "the per-exercise pass-rate bars are not on screen"
    assert max(y for _, y in bars) < min(y for _, y in rates), "the histogram should sit above the exercises"
    cells = where(rows, PASSED_CELL)
    assert max(y for _, y in rates) < min(y for _, y in cells), "the exercises should sit above the gradebook"
    # Several bars of different heights: the tallest column of bar pixels is taller than the shortest one.
    heights: dict[int, int] = {}
    for x, _ in bars:
        heights[x] = heights.get(x, 0) + 1
    assert max(heights.values()) > min(heights.values())


@pytest.mark.parametrize(("fragment", "column", "descending"), [
    ("#sort=total-desc", -1, True), ("#sort=add", 1, False)])
def test_the_table_sorts_by_a_column_in_the_browser(graded_class: GradedClass, tmp_path: Path, fragment: str,
                                                    column: int, descending: bool) -> None:
    page = graded_class.out / "html" / "index.html"
    served = [row[column] for row in Page(page.read_text(encoding="utf-8")).tables["gradebook"][1:]]
    shown = [row[column] for row in Page(chromium(page.resolve().as_uri() + fragment, tmp_path / "profile",
                                                  "--dump-dom")).tables["gradebook"][1:]]

    def key(cell: str) -> float | str:
        return float(cell.split()[0]) if column else cell.lower()  # "3 wrong answer": the points first

    assert sorted(shown) == sorted(served)
    assert [key(cell) for cell in shown] == sorted(map(key, served), reverse=descending)


def test_a_student_page_shows_the_code_with_the_crashing_line_marked_in_chromium(graded_class: GradedClass,
                                                                                  tmp_path: Path) -> None:
    student = next(s for s, answers in graded_class.chosen.items() if answers["add"].name == "crash"
                   and answers["shout"].name == "correct" and s.isalnum())
    html = graded_class.out / "html" / "students" / f"{student}.html"
    png = tmp_path / "student.png"
    chromium(html.resolve().as_uri(), tmp_path / "profile", f"--screenshot={png}")
    _, _, rows = read_png(png)
    pointed, code = where(rows, POINTED_LINE), where(rows, CODE)
    assert len(pointed) > 5000, "the line the traceback points at is not highlighted on screen"
    assert len(code) > 20000, "the code is not on screen"
    # One line is marked: a band about one text line high, inside the code's box.
    assert max(y for _, y in pointed) - min(y for _, y in pointed) < 30
    assert min(y for _, y in code) < min(y for _, y in pointed)
    shown = " ".join("".join(Page(chromium(html.resolve().as_uri(), tmp_path / "profile", "--dump-dom")).text)
                     .split())
    assert "error → 2raise RuntimeError('not today')" in shown and "runtime error" in shown
