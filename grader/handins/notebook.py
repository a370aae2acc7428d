"""A Jupyter notebook (.ipynb), read with nbformat, the Jupyter project's own reader: its code cells, in
order, run as the module. IPython magics (`%...`, `%%...`) and shell lines (`!...`) are not Python and are
not run; the report says which cells held them."""

from __future__ import annotations

import json
from pathlib import Path

from grader.handins.base import Cell, Context, Handin, refuse
from grader.handins.text import read_bytes
from grader.model import Verdict

MAX_NOTEBOOK_BYTES = 8 << 20  # outputs (plots as base64) make notebooks far larger than their code


class NotebookForm:
    name = "notebook"

    def read(self, path: Path, context: Context) -> Handin:
        data, problem = read_bytes(path, MAX_NOTEBOOK_BYTES)
        if data is None:
            return refuse(problem, form=self.name)
        return from_bytes(data, path.name, context)


def from_bytes(data: bytes, name: str, context: Context) -> Handin:
    if not context.runs_as_module:
        return refuse(f"a notebook answers a function exercise; hand in {context.exercise.id}{context.suffix} "
                      f"for this one", form="notebook")
    import nbformat  # only for a notebook: it imports jsonschema, a quarter of a second

    try:
        text = data.decode("utf-8")
        if problem := _too_many_values(data):
            return _malformed(problem)
        raw = json.loads(text)
        if not isinstance(raw, dict) or "nbformat" not in raw:
            return _malformed("it is not a Jupyter notebook: a notebook is a JSON object with 'nbformat', "
                              "'metadata' and 'cells'")
        if not isinstance(raw.get("cells", []), list):
            return _malformed("it is not a Jupyter notebook: its 'cells' is not a list")
        if problem := _shape_problem(raw):
            return _malformed(f"it is not a Jupyter notebook: {problem}")
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except UnicodeDecodeError as error:
        return _malformed(f"it is not UTF-8 text (byte {error.start})")
    except json.JSONDecodeError as error:
        return _malformed(f"it is not valid JSON: {error}")
    except RecursionError:
        return _malformed(f"it is not a Jupyter notebook: it nests deeper than {MAX_DEPTH} levels")
    except Exception as error:  # nbformat's own reader and converters assert, index and convert freely
        return _malformed(f"it is not a Jupyter notebook: {_first_line(error)}")
    lines: list[str] = []
    cells: list[Cell] = []
    with_magics: list[int] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        code, skipped = python_lines(str(cell.get("source", "")))
        if skipped:
            with_magics.append(number)
        cells.append(Cell(number, len(lines) + 1, len(code)))
        lines += code
    notes = (f"cells {_numbers(with_magics)} hold IPython magics or shell lines (% ... or ! ...); those lines "
             f"were not run",) if with_magics else ()
    return Handin(source="\n".join(lines) + "\n", cells=tuple(cells), notes=notes, shown_name=name,
                  form="notebook")


# Bounds that a notebook meets by far and a hostile file does not: how deep its JSON nests, how many values
# it holds (each costs the grader ~100 bytes once parsed), the versions nbformat reads, a heading's level.
MAX_DEPTH = 64
MAX_VALUES = 500_000
VERSIONS = (3, 4)
HEADING_LEVELS = range(1, 7)


def _too_many_values(data: bytes) -> str:
    """Counted on the bytes, before parsing: the separators and brackets bound the values JSON makes (a
    string that holds them only makes the count larger)."""
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    if values > MAX_VALUES:
        return f"it holds more than {MAX_VALUES} JSON values; a notebook's code is far less (clear its outputs)"
    return ""


def _shape_problem(raw: dict[str, object]) -> str:
    """What nbformat would crash on or pay dearly for, checked first: a version that is no int, nesting
    deeper than any notebook, a heading (nbformat 3) whose level becomes that many '#'s."""
    major, minor = raw.get("nbformat"), raw.get("nbformat_minor", 0)
    if type(major) is not int or major not in VERSIONS:
        return f"'nbformat' is {str(major)[:20]!r}; the grader reads notebooks of nbformat 3 and 4"
    if type(minor) is not int or minor < 0:
        return f"'nbformat_minor' is {str(minor)[:20]!r}, not a whole number"
    if _depth(raw) > MAX_DEPTH:
        return f"it nests deeper than {MAX_DEPTH} levels"
    for worksheet in raw.get("worksheets") or [] if major == 3 else []:
        for cell in worksheet.get("cells") or [] if isinstance(worksheet, dict) else []:
            level = cell.get("level", 1) if isinstance(cell, dict) and cell.get("cell_type") == "heading" else 1
            if type(level) is not int or level not in HEADING_LEVELS:
                return f"a heading cell has level {str(level)[:20]}; headings have levels 1 to 6"
    return ""


def _depth(value: object) -> int:
    """How deeply `value` nests, level by level (no recursion); stops counting past MAX_DEPTH."""
    depth, level = 0, [value]
    while level and depth <= MAX_DEPTH:
        inner: list[object] = []
        for item in level:
            if isinstance(item, dict):
                inner += item.values()
            elif isinstance(item, list):
                inner += item
        level, depth = inner, depth + 1 if inner else depth
    return depth


def python_lines(source: str) -> tuple[list[str], bool]:
    """The cell's lines with magics and shell lines blanked (kept as lines: positions stay the cell's)."""
    lines = source.splitlines() or [""]
    if lines[0].lstrip().startswith("%%"):  # a cell magic: the whole cell is IPython's, not Python
        return ["" for _ in lines], True
    kept, skipped = [], False
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            indent = line[: len(line) - len(stripped)]
            kept.append(f"{indent}pass" if indent else "")  # an indented magic may be all its block holds
            skipped = True
        else:
            kept.append(line)
    return kept, skipped


def _malformed(reason: str) -> Handin:
    return refuse(f"the notebook cannot be read: {reason}", Verdict.SYNTAX_ERROR, form="notebook")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__


def _numbers(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))
