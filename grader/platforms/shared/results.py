"""A platform's results.json, written whole: the platform reads it once the run ends, and never half of it."""

from __future__ import annotations

import json
from pathlib import Path


def write_results(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=2, ensure_ascii=True) + "\n", encoding="utf-8")
    partial.replace(path)
