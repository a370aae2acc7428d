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

HISTOGRAM_BARS = (0xE6, 0x61, 0x01)  # fill of the histogram's bars in batch_class.html.j2
PASS_RATE_BARS = (0x5E, 0x3C, 0x99)
TABLE_HEADER = (0x1B, 0x49, 0x65)  # background of the gradebook's header row
PASSED_CELL = (0xDC, 0xF1, 0xDC)  # background of a cell whose exercise passed


def screenshot(page: Path, png: Path, profile: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("chromium is not installed: apt-get install chromium (.ci/run does it)")
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", f"--screenshot={png}", "--window-size=1200,900",
               page.resolve().as_uri()]
    # A session of its own, so that a hung browser is killed with every helper process it started.
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, errors = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # helpers that outlived the browser
        except ProcessLookupError:
            pass
    assert png.exists(), errors.decode(errors="replace")[-2000:]


def test_the_class_page_shows_the_histogram_above_the_table_in_chromium(graded_class: GradedClass,
                                                                         tmp_path: Path) -> None:
    png = tmp_path / "class.png"
    screenshot(graded_class.out / "html" / "index.html", png, tmp_path / "profile")
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
