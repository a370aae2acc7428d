"""The sections of a spec that staff's tools read: `mutants:` (grader validate --mutants) and `rubric:` (what a
TA ticks by hand in a review). Read through the loader's protocol (spec_reader.py), as every section is."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import yaml

from grader.model import MutantsRule, RubricItem

if TYPE_CHECKING:
    from grader.spec_reader import SpecReader as Reader


def read_mutants(reader: Reader, node: yaml.Node | None) -> MutantsRule:
    """`mutants: {kill_at_least: 0.9, equivalent: [{id: ..., reason: ...}]}` (grader validate --mutants)."""
    if node is None:
        return MutantsRule()
    keys = reader.mapping(node, ("kill_at_least", "equivalent"), "mutants")
    floor = reader.typed(keys.get("kill_at_least"), float, "mutants.kill_at_least", None, "a number from 0 to 1")  # type: ignore[arg-type]
    if floor is not None and not 0 <= floor <= 1:
        reader.problem(keys["kill_at_least"], f"mutants.kill_at_least must be from 0 to 1 (a share), not {floor}")
        floor = None
    marks: list[tuple[str, str]] = []
    listed = keys.get("equivalent")
    if listed is not None and not isinstance(listed, yaml.SequenceNode):
        reader.problem(listed, "mutants.equivalent must be a list of {id: MUTANT-ID, reason: WHY}")
    for item in listed.value if isinstance(listed, yaml.SequenceNode) else ():
        mark = reader.mapping(item, ("id", "reason"), "an item of mutants.equivalent")
        for required in ("id", "reason"):
            if isinstance(item, yaml.MappingNode) and required not in mark:
                reader.problem(item, f"an equivalent mutant needs '{required}': the id the report gives, and "
                                     f"why no test can tell it from the reference")
        if "id" in mark and "reason" in mark:
            marks.append((reader.text(mark["id"], "id"), reader.text(mark["reason"], "reason")))
    return MutantsRule(floor, tuple(marks))


RUBRIC_ID = re.compile(r"^[a-z0-9]+([-_][a-z0-9]+)*$")
RUBRIC_MOST = 100  # items: a review form a TA can read down
RUBRIC_POINTS_MOST = 1000.0


def read_rubric(reader: Reader, node: yaml.Node | None) -> tuple[RubricItem, ...]:
    """`rubric: [{id: clear-names, points: 1, description: ...}, ...]`: what a TA ticks by hand."""
    if node is None:
        return ()
    if not isinstance(node, yaml.SequenceNode):
        reader.problem(node, "rubric must be a list of {id: ITEM-ID, points: NUMBER, description: TEXT}")
        return ()
    if len(node.value) > RUBRIC_MOST:
        reader.problem(node, f"rubric has {len(node.value)} items; at most {RUBRIC_MOST}")
    items: list[RubricItem] = []
    seen: set[str] = set()
    for item in node.value[:RUBRIC_MOST]:
        keys = reader.mapping(item, ("id", "points", "description"), "a rubric item")
        if not isinstance(item, yaml.MappingNode):
            continue
        missing = [key for key in ("id", "points", "description") if key not in keys]
        for key in missing:
            reader.problem(item, f"a rubric item needs '{key}': an id, the points it adds (negative: takes off) "
                                 f"and a description the student reads")
        item_id = reader.text(keys.get("id"), "rubric: id")
        if "id" in keys and not RUBRIC_ID.match(item_id):
            reader.problem(keys["id"], f"rubric: id '{item_id}' must be lower-case letters, digits, '-' or '_' "
                                       f"(e.g. clear-names)")
        elif item_id in seen:
            reader.problem(keys["id"], f"two rubric items have the id '{item_id}': ids must be unique")
        points = reader.typed(keys.get("points"), float, f"rubric item '{item_id}': points", None,  # type: ignore[arg-type]
                              "a number (negative takes points off)")
        if points is not None and not (points != 0 and abs(points) <= RUBRIC_POINTS_MOST):
            reader.problem(keys["points"], f"rubric item '{item_id}': points must be a number other than 0, "
                                           f"from -{RUBRIC_POINTS_MOST:g} to {RUBRIC_POINTS_MOST:g}, not {points}")
            points = None
        description = reader.text(keys.get("description"), f"rubric item '{item_id}': description").strip()
        if "description" in keys and not description:
            reader.problem(keys["description"], f"rubric item '{item_id}': description must not be empty")
        if not missing and points is not None and description and RUBRIC_ID.match(item_id) and item_id not in seen:
            items.append(RubricItem(item_id, points, description))
        seen.add(item_id)
    return tuple(items)
