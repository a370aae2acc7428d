"""similarity/index.html (the groups, then the pairs ranked) and similarity/pairs/<n>.html (the two files side
by side, the matched regions marked). jinja2 with autoescape: names, file names and code are the students'."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from grader.outputs.files import swapped_folder, write_atomic
from grader.text import escape_controls
from grader.records import record
from grader.similarity.analysis import Similarity
from grader.similarity.compare import Document, Pair

FOLDER = "similarity"
TEMPLATES = Path(__file__).resolve().parent / "templates"
LISTED = 200  # pairs on the index page (the closest); the JSON has them all
MARKS = 6  # region colours, reused in turn


@record
class Line:
    number: int
    text: str
    region: int | None  # the first matched region the line is in (1-based), None outside them


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["visible"] = escape_controls  # control characters in a name or a line, shown as \xNN
    env.filters["percent"] = lambda score: f"{score * 100:.0f}%"
    env.globals["MARKS"] = MARKS
    return env


def write(similarity: Similarity, out: Path) -> list[Path]:
    env = environment()
    listed = similarity.pairs[:LISTED]
    # Pages are numbered, never named after a student: a name is untrusted text, not a path.
    pages = {rank: f"pairs/{rank}.html" for rank, pair in enumerate(listed, 1) if pair.regions}
    with swapped_folder(out / FOLDER) as folder:
        (folder / "pairs").mkdir()
        write_atomic(folder / "index.html", env.get_template("similarity_index.html.j2").render(
            similarity=similarity, listed=listed, pages=pages, hidden=len(similarity.pairs) - len(listed)))
        page = env.get_template("similarity_pair.html.j2")
        for rank, pair in enumerate(listed, 1):
            if rank in pages:
                write_atomic(folder / pages[rank], page.render(
                    pair=pair, rank=rank, a_lines=lines(pair.a, pair, "a"), b_lines=lines(pair.b, pair, "b")))
    return [out / FOLDER / "index.html"]


def lines(doc: Document, pair: Pair, side: str) -> list[Line]:
    spans = [region.a_lines if side == "a" else region.b_lines for region in pair.regions]
    return [Line(number, text, next((i for i, (first, last) in enumerate(spans, 1) if first <= number <= last), None))
            for number, text in enumerate(doc.source.splitlines() or [""], 1)]
