"""Every output of the grader, for one student or a whole class: a new format is one module (a subclass of
Output) plus one line in OUTPUTS."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from grader.records import record
from grader.registry import load

if TYPE_CHECKING:
    from pathlib import Path

    from grader.gradebook import Gradebook
    from grader.model import Report


class Output:
    """An output renders one student's Report to a stream (`grader check --format NAME`), writes a class's
    Gradebook into a folder (`grader batch --outputs NAME`), or both: it overrides what its registry line
    says it does."""

    def render(self, report: Report, out: TextIO) -> None:
        raise NotImplementedError(f"{type(self).__name__} renders no single report")

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        """Writes into `folder`; returns what a teacher opens (a file or a folder)."""
        raise NotImplementedError(f"{type(self).__name__} writes no gradebook")


@record
class Entry:
    where: str  # "module:class", imported on use: `--format json` never loads rich, the CLI starts without jinja2
    report: bool = False  # offered by `grader check --format`
    batch: bool = False  # offered by `grader batch --outputs`, in this order
    default: bool = True  # written by a batch that names no --outputs
    grades: bool = False  # a platform's score: `grader check --format` runs every test for it, as a batch does


OUTPUTS: dict[str, Entry] = {
    "csv": Entry("grader.outputs.csv_gradebook:CsvGradebook", batch=True),
    "json": Entry("grader.outputs.json_report:JsonReport", report=True, batch=True),
    "gradescope": Entry("grader.platforms.gradescope.output:GradescopeResults", report=True, batch=True, grades=True),
    "prairielearn": Entry("grader.platforms.prairielearn.output:PrairieLearnResults", report=True, grades=True),
    "github-classroom": Entry("grader.platforms.github_classroom.output:GitHubClassroomResults", report=True, grades=True),
    "junit": Entry("grader.outputs.junit:JUnitXml", batch=True),
    "html": Entry("grader.outputs.html:HtmlPages", batch=True),
    "terminal": Entry("grader.outputs.terminal:TerminalReport", report=True),
    "similarity": Entry("grader.similarity.batch_output:SimilarityReport", batch=True, default=False),
    # `grader batch --gradebook NAME`: the class joined to its roster, as an LMS imports it.
    "canvas": Entry("grader.platforms.canvas.gradebook:CanvasGradebook"),
    "moodle": Entry("grader.platforms.moodle.gradebook:MoodleGradebook"),
    "plain": Entry("grader.outputs.lms_gradebook:PlainGradebook"),
}


def report_formats() -> list[str]:
    return [name for name, entry in OUTPUTS.items() if entry.report]


def batch_outputs(defaults_only: bool = False) -> tuple[str, ...]:
    return tuple(name for name, entry in OUTPUTS.items() if entry.batch and (entry.default or not defaults_only))


def output(name: str) -> Output:
    return load(OUTPUTS[name].where)()  # type: ignore[no-any-return,operator]


def import_soon(name: str) -> None:
    """Start importing output `name`'s module on a thread; `output(name)` later waits for it on the module's
    import lock. Why: a check's tests leave this process idle, waiting on the sandbox with the GIL free,
    while the terminal report's imports (rich) are a large share of a check; done in those waits, they
    cost a check nothing. The thread imports modules and nothing else: it never touches the sandbox."""
    from grader.background import in_background

    where = OUTPUTS[name].where
    in_background(lambda: load(where))
