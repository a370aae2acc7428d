"""One file handed in: Python source read as Python reads it (a predict answer: UTF-8 text). In a batch,
the other Python files of the student's folder (`Context.helpers`) come along as importable modules."""

from __future__ import annotations

from pathlib import Path

from grader.handins.base import Context, Handin, refuse
from grader.handins.text import read_bytes, python_text


class FileForm:
    name = "file"

    def accepts(self, path: Path) -> bool:
        return True  # the last resort: whatever else it is, it is read as the exercise's own file

    def read(self, path: Path, context: Context) -> Handin:
        data, problem = read_bytes(path)
        if data is None:
            return refuse(problem)
        source, problem = python_text(data)
        if source is None:
            return refuse(problem)
        if not context.runs_code or not context.helpers:
            return Handin(source=source)
        from grader.handins.tree import modules_beside  # a batch's helpers only: a check reads one file

        files = {path.name: data}
        for helper in context.helpers:
            helper_data, problem = read_bytes(helper)
            if helper_data is None:
                return refuse(f"{helper.name}: {problem}")
            files[helper.name] = helper_data
        modules, problem = modules_beside(path.name, files)
        if problem:
            return refuse(problem)
        return Handin(source=source, modules=modules)
