"""A pair's page in a real browser: headless Chromium shows the two files side by side, each with matched
lines marked, and the notice that similarity is no verdict above them."""

from __future__ import annotations

from pathlib import Path

from tests.batch.png import read_png, where
from tests.batch.test_screenshot import chromium
from tests.conftest import run_cli
from tests.similarity.classroom import PLANTED, write_class

NOTICE = (0xFD, 0xF1, 0xE4)  # background of the notice in similarity_base.html.j2
# .m1 to .m6: the lines of matched regions, a colour per region
REGIONS = [(0xFD, 0xE0, 0xC5), (0xCF, 0xE3, 0xF5), (0xD8, 0xF0, 0xD2), (0xEA, 0xDC, 0xF3), (0xFB, 0xF3, 0xC2),
           (0xF6, 0xD3, 0xDF)]


def test_a_pair_page_shows_both_files_side_by_side_in_chromium(tmp_path: Path) -> None:
    root = write_class(tmp_path / "class", {"original": PLANTED["original"], "reordered": PLANTED["reordered"]})
    completed = run_cli("similar", root, "--out", tmp_path / "out")
    assert completed.returncode == 0, completed.stderr
    png = tmp_path / "pair.png"
    chromium((tmp_path / "out" / "similarity" / "pairs" / "1.html").resolve().as_uri(), tmp_path / "profile",
             f"--screenshot={png}")
    width, height, rows = read_png(png)
    assert (width, height) == (1200, 900)
    notice = where(rows, NOTICE)
    marked = [point for colour in REGIONS for point in where(rows, colour)]
    assert len(notice) > 20000, "the notice is not on screen"
    assert max(y for _, y in notice) < min(y for _, y in marked), "the notice should come first"
    # Two columns of marked lines with a gap between them in the middle: a long line scrolls inside its
    # own file instead of pushing the other file off screen.
    code_rows = {y for x, y in marked if x > 0.6 * width}  # the regions table above is narrower
    columns = sorted({x for x, y in marked if y in code_rows})
    gap, after = max((b - a, b) for a, b in zip(columns, columns[1:]))
    assert gap > 8 and 0.4 * width < after < 0.6 * width, (gap, after)
    left = [x for x, _ in marked if x < after]
    assert len(left) > 5000 and len(marked) - len(left) > 5000, "both files should show marked lines"
