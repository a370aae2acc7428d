"""The mutants `grader validate --mutants --format json` graded (grader/schemas/mutants.schema.json), as the
analytics match them against a class: which tests each caught mutant fails."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from grader.analytics.handins import bounded
from grader.errors import UsageError
from grader.records import record

CAUGHT = ("killed", "timed_out")  # a survivor fails no test: nothing to match a student's mistake with


@record
class Mutant:
    id: str
    rule: str
    what: str  # the mistake in words: "off by one in a range"
    status: str
    failing: frozenset[str]  # the tests it fails


def load_mutants(path: Path) -> dict[str, list[Mutant]]:
    """exercise id -> its caught mutants, from the file `grader validate --mutants --format json` wrote."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"cannot read --mutants {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise UsageError(f"--mutants {path} is not JSON: write it with "
                         f"grader validate --mutants --format json > {path.name}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("exercises"), list):
        raise UsageError(f"--mutants {path} is not what grader validate --mutants --format json writes "
                         f"(no list of exercises)")
    return read_mutants(data)


def read_mutants(data: Mapping[str, object]) -> dict[str, list[Mutant]]:
    """The caught mutants of each exercise; an entry of the wrong shape is passed over."""
    found: dict[str, list[Mutant]] = {}
    exercises = data.get("exercises")
    for exercise in exercises if isinstance(exercises, list) else ():
        if not isinstance(exercise, Mapping) or not isinstance(exercise.get("id"), str):
            continue
        mutants = exercise.get("mutants")
        for mutant in mutants if isinstance(mutants, list) else ():
            if not isinstance(mutant, Mapping) or mutant.get("status") not in CAUGHT:
                continue
            killed = mutant.get("killed_by")
            failing = frozenset(t for t in killed if isinstance(t, str)) if isinstance(killed, list) else frozenset()
            if failing:
                found.setdefault(exercise["id"], []).append(Mutant(
                    bounded(str(mutant.get("id", "?"))), bounded(str(mutant.get("rule", "?"))),
                    bounded(str(mutant.get("what", ""))), str(mutant["status"]), failing))
    return found
