"""html/index.html (the class: score histogram and per-test pass rates as inline SVG, a sortable table) and
html/students/<student>.html (each test's verdict, feedback and diff). jinja2 with autoescape: student
text is always escaped; the templates live in grader/reporters/templates/."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

import grader.reporters
from grader.batch.gradebook import Gradebook, file_name_for, histogram, pass_rates, points
from grader.batch.outputs.files import swapped_folder, write_atomic
from grader.model import Verdict
from grader.reporters.terminal import escape_controls

FOLDER = "html"
TEMPLATES = Path(grader.reporters.__file__).resolve().parent / "templates"


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["points"] = points
    env.filters["visible"] = escape_controls  # control characters a student printed, shown as \xNN
    env.globals["verdict_class"] = verdict_class
    return env


def verdict_class(verdict: Verdict | str) -> str:
    """The CSS class of a verdict: passed, failed, skipped or missing."""
    verdict = Verdict(verdict)
    if verdict in (Verdict.PASSED, Verdict.SKIPPED, Verdict.MISSING):
        return str(verdict)
    return "failed"


def write(book: Gradebook, out: Path) -> list[Path]:
    env = environment()
    pages = {student: f"students/{file_name_for(student)}.html" for student in book.students}
    with swapped_folder(out / FOLDER) as folder:
        (folder / "students").mkdir()
        write_atomic(folder / "index.html", env.get_template("batch_class.html.j2").render(
            book=book, pages=pages, bins=histogram(book), rates=pass_rates(book)))
        student_page = env.get_template("batch_student.html.j2")
        for student in book.students:
            write_atomic(folder / pages[student], student_page.render(book=book, student=student))
    return [out / FOLDER / "index.html"]
