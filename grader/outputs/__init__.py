"""Every output of the grader, for one student or a whole class: a new format is one module (a subclass of
Output) plus one line in OUTPUTS, or, from a package of its own, an entry point in the `grader.outputs` group
(docs/extending.md). Every list of formats (the command line's choices, the server's, its OpenAPI enum) is
read from OUTPUTS."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TextIO

from grader.records import record
from grader.registry import Registry, load

if TYPE_CHECKING:
    from pathlib import Path

    from grader.gradebook import Gradebook
    from grader.model import Report


class Output:
    """An output renders one student's Report to a stream (`grader check --format NAME`), writes a class's
    Gradebook into a folder (`grader batch --outputs NAME`), or both: it overrides what its registry line
    says it does. A package's output says it by what it overrides, and by the class variables below."""

    grades: ClassVar[bool] = False  # see Entry: for a package's output only, whose class is its registry line
    lms: ClassVar[bool] = False

    def render(self, report: Report, out: TextIO) -> None:
        raise NotImplementedError(f"{type(self).__name__} renders no single report")

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        """Writes into `folder`; returns what a teacher opens (a file or a folder)."""
        raise NotImplementedError(f"{type(self).__name__} writes no gradebook")


@record
class Entry:
    # "module:class", imported on use: `--format json` never loads rich, the CLI starts without jinja2; or the
    # class itself (a package's output, imported when it was found)
    where: str | type[Output]
    report: bool = False  # offered by `grader check --format`
    batch: bool = False  # offered by `grader batch --outputs`, in this order
    default: bool = True  # written by a batch that names no --outputs
    grades: bool = False  # a platform's score: `grader check --format` runs every test for it, as a batch does
    lms: bool = False  # a gradebook an LMS imports: `grader batch --gradebook NAME`, the server's ?format=NAME
    roster: bool = False  # needs the class's roster (the people's ids): the server has one only with --roster
    served: bool = False  # one file of the whole class: the server's GET /api/gradebook?format=NAME


def adopt(found: object) -> Entry:
    """A package's output (what its `grader.outputs` entry point names) as its registry line: an Entry, or
    an Output subclass, offered to `check --format` if it renders and to `batch --outputs` if it writes."""
    if isinstance(found, Entry):
        return found
    if not (isinstance(found, type) and issubclass(found, Output)):
        raise TypeError(f"{found!r} is not a subclass of grader.outputs.Output")
    renders, writes = found.render is not Output.render, found.write is not Output.write
    if not renders and not writes:
        raise TypeError(f"{found.__name__} overrides neither render (a report) nor write (a gradebook)")
    return Entry(found, report=renders, batch=writes and not found.lms, default=False, grades=found.grades,
                 lms=writes and found.lms, served=writes and found.lms)


OUTPUTS: Registry[Entry] = Registry({
    "csv": Entry("grader.outputs.csv_gradebook:CsvGradebook", batch=True, served=True),
    "json": Entry("grader.outputs.json_report:JsonReport", report=True, batch=True, served=True),
    "gradescope": Entry("grader.platforms.gradescope.output:GradescopeResults", report=True, batch=True, grades=True),
    "prairielearn": Entry("grader.platforms.prairielearn.output:PrairieLearnResults", report=True, grades=True),
    "github-classroom": Entry("grader.platforms.github_classroom.output:GitHubClassroomResults", report=True, grades=True),
    "junit": Entry("grader.outputs.junit:JUnitXml", batch=True),
    "html": Entry("grader.outputs.html:HtmlPages", batch=True),
    "terminal": Entry("grader.outputs.terminal:TerminalReport", report=True),
    "similarity": Entry("grader.similarity.batch_output:SimilarityReport", batch=True, default=False),
    # `grader batch --gradebook NAME`: the class joined to its roster, as an LMS imports it.
    "canvas": Entry("grader.platforms.canvas.gradebook:CanvasGradebook", lms=True, served=True),
    "moodle": Entry("grader.platforms.moodle.gradebook:MoodleGradebook", lms=True, roster=True, served=True),
    "plain": Entry("grader.outputs.lms_gradebook:PlainGradebook", lms=True, served=True),
}, what="output format", group="grader.outputs", adopt=adopt)

# The lists that name outputs, each read from OUTPUTS when it is read (so a package's output is in them).
REPORT_FORMATS = OUTPUTS.names(lambda entry: entry.report, ordered=True)  # `grader check --format`
LMS_GRADEBOOKS = OUTPUTS.names(lambda entry: entry.lms)  # `grader batch --gradebook`
# The server's GET /api/gradebook?format=: its own JSON first (the batch's, with what rules it applied).
SERVED_GRADEBOOKS = OUTPUTS.names(lambda entry: entry.served, first=("json",))
NEEDS_ROSTER = OUTPUTS.names(lambda entry: entry.roster)


def report_formats() -> list[str]:
    return list(REPORT_FORMATS)


def batch_outputs(defaults_only: bool = False) -> tuple[str, ...]:
    return tuple(name for name, entry in OUTPUTS.items() if entry.batch and (entry.default or not defaults_only))


def output(name: str) -> Output:
    where = OUTPUTS[name].where
    return (load(where) if isinstance(where, str) else where)()  # type: ignore[no-any-return,operator]


def import_soon(name: str) -> None:
    """Start importing output `name`'s module on a thread; `output(name)` later waits for it on the module's
    import lock. Why: a check's tests leave this process idle, waiting on the sandbox with the GIL free,
    while the terminal report's imports (rich) are a large share of a check; done in those waits, they
    cost a check nothing. The thread imports modules and nothing else: it never touches the sandbox."""
    from grader.background import in_background

    where = OUTPUTS[name].where
    if isinstance(where, str):
        in_background(lambda: load(where))
