"""JSON Schemas of what the grader reads and writes: the exercise spec (for editors and CI), the JSON
report, grades.json, the mutants report, and each platform's results format, as their specifications describe it."""

from __future__ import annotations

import json
from importlib.resources import files

NAMES = ("exercise", "report", "grades", "mutants", "gradescope-results", "prairielearn-results",
         "github-classroom-results", "server-api")


def schema_text(name: str) -> str:
    return (files(__name__) / f"{name}.schema.json").read_text(encoding="utf-8")


def load(name: str) -> dict[str, object]:
    return json.loads(schema_text(name))  # type: ignore[no-any-return]
