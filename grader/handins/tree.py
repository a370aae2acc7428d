"""A folder's files (from disk or from a zip), as the hand-in they make: the entry file, and every other
Python file under the entry's folder as a module importable by name, as Python finds a script's neighbours."""

from __future__ import annotations

from pathlib import PurePosixPath

from grader.handins.base import Context, Handin, Module, refuse
from grader.handins.text import python_text
from grader.records import record

MAX_FILES = 1000  # members of a zip or entries of a folder; more is refused, not read
MAX_TOTAL_BYTES = 16 << 20  # of every member a zip declares, unpacked
ENTRY_FALLBACK = "main"
IGNORED = {"__MACOSX", "__pycache__", ".git", ".ipynb_checkpoints"}


@record
class Tree:
    """The files that matter, by POSIX path relative to the hand-in's root."""

    files: dict[str, bytes]
    form: str  # "folder" or "zip"
    what: str  # how messages name it: "the folder", "the zip"


def wanted(path: str, context: Context) -> bool:
    """Whether a file is read at all: Python modules, and the entry's own suffix (.txt for predict)."""
    parts = PurePosixPath(path).parts
    if any(part in IGNORED or part.startswith(".") for part in parts):
        return False
    return path.endswith((".py", context.suffix))


def handin_of(tree: Tree, context: Context) -> Handin:
    files = _without_common_folder(tree.files)
    entry = choose_entry(files, context)
    if entry is None:
        candidates = sorted(p for p in files if p.endswith(context.suffix))
        named = f"{context.exercise.id}{context.suffix}"
        found = f"it holds {', '.join(candidates[:5])}" if candidates else f"it holds no {context.suffix} file"
        return refuse(f"{tree.what} has no entry file: name it {named} (or {ENTRY_FALLBACK}{context.suffix}); "
                      f"{found}", form=tree.form)
    source, problem = python_text(files[entry], entry) if context.runs_code else _text(files[entry], entry)
    if source is None:
        return refuse(problem, form=tree.form)
    modules, problem = modules_beside(entry, files) if context.runs_code else ((), "")
    if problem:
        return refuse(problem, form=tree.form)
    note = f"{tree.what} was graded from {entry}" + (
        f", with {', '.join(m.path for m in modules if m.source)} importable" if modules else "")
    return Handin(source=source, modules=modules, notes=(note,), form=tree.form)


def choose_entry(files: dict[str, bytes], context: Context) -> str | None:
    """The file named for the exercise (shallowest first), else the only one, else main.<suffix>."""
    ours = sorted((p for p in files if p.endswith(context.suffix)), key=lambda p: (p.count("/"), p))
    named = [p for p in ours if context.is_entry_name(PurePosixPath(p).name)]
    if named:
        return named[0]
    if len(ours) == 1:
        return ours[0]
    main = [p for p in ours if PurePosixPath(p).name == ENTRY_FALLBACK + context.suffix]
    return main[0] if main else None


def modules_beside(entry: str, files: dict[str, bytes]) -> tuple[tuple[Module, ...], str]:
    """Every other .py file under the entry's folder, named as `import` would find it from there."""
    root = PurePosixPath(entry).parent
    modules: dict[str, Module] = {}
    for path in sorted(files):
        pure = PurePosixPath(path)
        if path == entry or not path.endswith(".py") or not pure.is_relative_to(root):
            continue
        parts = list(pure.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        if not parts or not all(part.isidentifier() for part in parts):
            continue  # count-queens.py cannot be imported by name anyway
        text, problem = python_text(files[path], path)
        if text is None:
            return (), problem
        name = ".".join(parts)
        modules[name] = Module(name, path, text, package)
        for depth in range(1, len(parts)):  # a folder without __init__.py imports as a namespace package
            parent = ".".join(parts[:depth])
            modules.setdefault(parent, Module(parent, "/".join(parts[:depth]) + "/", "", True))
    return tuple(modules[name] for name in sorted(modules)), ""


def _without_common_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A zip of a folder holds ada/count-queens.py: grade it as the folder's content."""
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        return {path.split("/", 1)[1]: data for path, data in files.items()}
    return files


def _text(data: bytes, name: str) -> tuple[str | None, str]:
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), ""
    except UnicodeDecodeError as error:
        return None, f"{name} is not UTF-8 text (byte {error.start}); save the file as UTF-8"
