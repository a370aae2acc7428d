"""A Jupyter notebook (.ipynb), read with nbformat, the Jupyter project's own reader: its code cells, in
order, run as the module. IPython magics (`%...`, `%%...`) and shell lines (`!...`) are not Python and are
not run; the report says which cells held them."""

from __future__ import annotations

import json
from pathlib import Path

from grader.handins.base import Context, Handin, refuse
from grader.handins.text import read_bytes
from grader.model import Verdict
from grader.records import record

MAX_NOTEBOOK_BYTES = 8 << 20  # outputs (plots as base64) make notebooks far larger than their code


@record
class Cell:
    """Where one notebook code cell's lines are in the module the notebook runs as."""

    number: int  # 1-based among all the notebook's cells, markdown included, as the notebook shows them
    first_line: int  # of the module, 1-based
    lines: int


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
        raw = json.loads(text)
        if not isinstance(raw, dict) or "nbformat" not in raw:
            return _malformed("it is not a Jupyter notebook: a notebook is a JSON object with 'nbformat', "
                              "'metadata' and 'cells'")
        if not isinstance(raw.get("cells", []), list):
            return _malformed("it is not a Jupyter notebook: its 'cells' is not a list")
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except UnicodeDecodeError as error:
        return _malformed(f"it is not UTF-8 text (byte {error.start})")
    except json.JSONDecodeError as error:
        return _malformed(f"it is not valid JSON: {error}")
    except (nbformat.ValidationError, ValueError, KeyError, TypeError,
            AttributeError) as error:
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
