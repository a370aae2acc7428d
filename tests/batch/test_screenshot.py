"""The class page in a real browser: headless Chromium (Debian's package, installed by .ci/run) takes a
screenshot, and its pixels show the histogram's bars above the gradebook table."""

from __future__ import annotations

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


def chromium(url: str, profile: Path, *action: str) -> str:
    """Run headless Chromium on a page with one action (--screenshot=..., --dump-dom); its standard output."""
    program = shutil.which("chromium")
    if program is None:
        pytest.fail("chromium is not installed: apt-get install chromium (.ci/run does it)")
    command = [program, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", "--window-size=1200,900", *action, url]
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
    chromium((graded_class.out / "html" / "index.html").resolve().as_uri(), tmp_path / "profile",
             f"--screenshot={png}")
    width, height, rows = read_png(png)
    assert (width, height) == (1200, 900)
    bars, header, rates = where(rows, HISTOGRAM_BARS), where(rows, TABLE_HEADER), where(rows, PASS_RATE_BARS)
    assert len(bars) > 2000, "the histogram's bars are not on screen"
    assert len(header) > 5000, "the gradebook table's header is not on screen"
    assert len(where(rows, PASSED_CELL)) > 5000, "the gradebook's cells are not on screen"
    assert len(rates) > 1000, "the pass-rate bars are not on screen"
    assert max(y for _, y in bars) < min(y for _, y in header), "the histogram should sit above the table"
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
    served = [row[column] for row in Page(page.read_text(encoding="utf-8")).rows[1:]]
    shown = [row[column] for row in Page(chromium(page.resolve().as_uri() + fragment, tmp_path / "profile",
                                                  "--dump-dom")).rows[1:]]

    def key(cell: str) -> float | str:
        return float(cell) if column else cell.lower()

    assert sorted(shown) == sorted(served)
    assert [key(cell) for cell in shown] == sorted(map(key, served), reverse=descending)
