"""`grader new ID`: an exercise spec and its reference folders, each with a TODO to fill in. The spec loads
as it is; `grader validate` fails on every TODO left and passes once they are written."""

from __future__ import annotations

from pathlib import Path

from grader.errors import UsageError
from grader.kinds import KINDS
from grader.spec import ID_PATTERN


def new_exercise(exercises_dir: Path, exercise_id: str, kind: str = "function", form: str = "plain") -> list[Path]:
    """Write exercises_dir/<id>.yaml and reference/<id>/...; refuses to overwrite anything."""
    if not ID_PATTERN.match(exercise_id):
        raise UsageError(f"'{exercise_id}' is not an exercise id: use lower-case letters, digits and '-'")
    if kind not in KINDS:
        raise UsageError(f"unknown kind '{kind}'; known kinds: {', '.join(KINDS)}")
    if form not in KINDS[kind].scaffold_forms:
        raise UsageError(f"a {kind} exercise has no form '{form}'; its forms: {', '.join(KINDS[kind].scaffold_forms)}")
    spec = exercises_dir / f"{exercise_id}.yaml"
    references = exercises_dir.parent / "reference" / exercise_id
    for path in (spec, references):
        if path.exists():
            raise UsageError(f"{path} exists: choose another id or remove it")
    entry = exercise_id.replace("-", "_")
    entry = entry if entry.isidentifier() else "solve"  # an id such as 2-sum is not a Python name
    template, files = KINDS[kind].scaffold(entry, form)
    exercises_dir.mkdir(parents=True, exist_ok=True)
    spec.write_text(template, encoding="utf-8")
    written = [spec]
    for name, text in files.items():
        path = references / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
