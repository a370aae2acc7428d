"""Which file names answer an exercise: the naming rule a batch, a platform and a folder hand-in share."""

from __future__ import annotations

import functools
import re

from grader.errors import UsageError
from grader.kinds import kind_of
from grader.model import Exercise
from grader.records import record

DEFAULT_TEMPLATES = ("{id}.{ext}",)


def extension(exercise: Exercise) -> str:
    return kind_of(exercise.kind).suffix.lstrip(".")


@record
class NameRule:
    """File-name templates: `{id}` is the exercise id, matched loosely (case, and `-`, `_`, `.` or spaces
    between its words, do not matter: `count_queens`, `Count Queens`, `countqueens`); `{ext}` is `py`, or
    `txt` for a predict exercise; `*` and `?` are glob wildcards. `<id>.<ext>` is always recognised."""

    templates: tuple[str, ...] = DEFAULT_TEMPLATES

    def __post_init__(self) -> None:
        for template in self.templates:
            if "{id}" not in template:
                raise UsageError(f"the name template {template!r} has no {{id}} (e.g. 'hw3_{{id}}.{{ext}}')")

    def rank(self, file_name: str, exercise: Exercise) -> int | None:
        """0 for the exact name, 1 + the template's position for a template match, None for no match."""
        if file_name == f"{exercise.id}.{extension(exercise)}":
            return 0
        for position, template in enumerate(self.templates):
            if _template_regex(template, exercise).fullmatch(file_name):
                return position + 1
        return None


def _template_regex(template: str, exercise: Exercise) -> re.Pattern[str]:
    return _compiled(template, exercise.id, extension(exercise))


@functools.lru_cache(maxsize=4096)
def _compiled(template: str, exercise_id: str, ext: str) -> re.Pattern[str]:
    words = [w for w in re.split(r"[-_. ]+", exercise_id) if w]
    loose_id = r"[-_. ]*".join(re.escape(word) for word in words)
    pattern = ""
    for piece in re.split(r"(\{id\}|\{ext\}|\*|\?)", template):
        pattern += {"{id}": loose_id, "{ext}": re.escape(ext), "*": ".*", "?": "."}.get(
            piece, re.escape(piece))
    return re.compile(pattern, re.IGNORECASE)
