"""html/index.html (the class: a score histogram as inline SVG, one row per exercise with its pass rates per
test folded under it, a legend, a sortable gradebook) and html/students/<student>.html (each test's verdict,
feedback and diff, and the student's code with the lines a traceback points at) and html/staff/<student>.html (the hidden
tests' expected values, outputs and tracebacks: for staff only). Verdicts are words as well
as colours. jinja2 with autoescape: student text is always escaped; the templates are the .j2 files of this
folder. class_parts.html.j2 (the histogram, the per-exercise rows, the legend, a gradebook cell) and
source.code_lines (a student's code with line anchors) are shared with the server's staff pages, which load
this folder beside their own (`shared` sets up what they need)."""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from grader.gradebook import Gradebook, PassRate, file_names, histogram, pass_rates
from grader.batch.per_exercise import exercise_summaries
from grader.model import Verdict
from grader.outputs import Output
from grader.outputs.files import swapped_folder, write_atomic
from grader.outputs.html.source import code_lines, source_of
from grader.text import (DIFF_CAPTION, NOTHING, body_form, cpu_time, diff_lines, escape_controls, points,
                         whole_file_problem)

FOLDER = "html"
TEMPLATES = Path(__file__).resolve().parent


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["points"] = points
    shared(env)
    env.globals.update(hunk_place=hunk_place, cpu_time=cpu_time, body_form=body_form, diff_lines=diff_lines,
                       whole_file_problem=whole_file_problem, diff_caption=DIFF_CAPTION, nothing=NOTHING)
    return env


def shared(env: Environment) -> None:
    """What class_parts.html.j2 and code_lines need of an environment: the server's pages add it to theirs,
    with this folder beside their own templates (TEMPLATES)."""
    env.filters["visible"] = escape_controls  # control characters a student printed, shown as \xNN
    env.globals.update(verdict_class=verdict_class, verdict_word=verdict_word, code_lines=code_lines)
    from grader.quality import shown as quality  # quality.html.j2's wording, shared with the server's pages

    env.globals.update(quality_headline=quality.headline, quality_category=quality.category_line,
                       quality_unlisted=quality.unlisted_line, quality_of=quality.quality_of)


def verdict_class(verdict: Verdict | str) -> str:
    """The CSS class of a verdict: passed, failed, skipped or missing."""
    verdict = Verdict(verdict)
    if verdict in (Verdict.PASSED, Verdict.SKIPPED, Verdict.MISSING):
        return str(verdict)
    return "failed"


def verdict_word(verdict: Verdict | str) -> str:
    """The verdict as a reader says it: "wrong answer" for wrong_answer."""
    return str(verdict).replace("_", " ")


def hunk_place(header: str) -> str:
    """'from line 229' for a unified diff's '@@ -229,3 +229,3 @@': where the shown part starts, in words."""
    found = re.match(r"@@ -(\d+)", header)
    return f"from line {found.group(1)}" if found else header


def rates_by_exercise(book: Gradebook) -> dict[str, list[PassRate]]:
    grouped: dict[str, list[PassRate]] = {e.id: [] for e in book.exercises}
    for rate in pass_rates(book):
        grouped[rate.exercise].append(rate)
    return grouped


class HtmlPages(Output):
    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        env = environment()
        named = file_names(book.students)
        pages = {student: f"students/{named[student]}.html" for student in book.students}
        staff_pages = {student: f"staff/{named[student]}.html" for student in book.students}
        with swapped_folder(folder / FOLDER) as building:
            (building / "students").mkdir()
            write_atomic(building / "index.html", env.get_template("batch_class.html.j2").render(
                book=book, pages=pages, staff_pages=staff_pages, bins=histogram(book),
                summaries=exercise_summaries(book), rates=rates_by_exercise(book)))
            (building / "staff").mkdir()
            student_page = env.get_template("batch_student.html.j2")
            staff_page = env.get_template("batch_staff.html.j2")
            for student in book.students:
                sources = {e.id: source_of(book.submissions, cell) for e in book.exercises
                           if (cell := book.cells.get((student, e.id)))}
                write_atomic(building / pages[student], student_page.render(book=book, student=student,
                                                                            sources=sources))
                # Staff only: the hidden tests' expected values and outputs. Never hand this folder out.
                write_atomic(building / staff_pages[student], staff_page.render(book=book, student=student,
                                                                                 page=pages[student]))
        return [folder / FOLDER / "index.html"]
