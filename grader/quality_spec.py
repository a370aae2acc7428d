"""A spec's `quality:`: ruff's rules in categories, each off, feedback or graded (a penalty per issue, a cap),
and a cap for the exercise (points, or a share of its points: `10%`), checked at load with file:line."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import yaml

from grader.quality.data import Category, Mode, QualitySpec

if TYPE_CHECKING:
    from grader.spec_reader import SpecReader as Reader

CATEGORY_KEYS = ("rules", "mode", "penalty", "cap")
NAME = re.compile(r"^[a-z0-9]+([-_][a-z0-9]+)*$")
SELECTOR = re.compile(r"^[A-Z]{1,10}[0-9]{0,4}$")  # ruff's codes and their prefixes: E, N8, B006, PLR2004
CATEGORIES_MOST = 20
POINTS_MOST = 1000.0
EXAMPLE = "quality: {categories: {naming: {rules: [N8], mode: graded, penalty: 0.5, cap: 2}}, cap: 3}"


def read_quality(reader: Reader, node: yaml.Node | None, runs_code: bool) -> QualitySpec | None:
    if node is None:
        return None
    if not runs_code:
        reader.problem(node, "quality: is for code that is handed in; this exercise's hand-in is not code")
        return None
    before = len(reader.problems)
    keys = reader.mapping(node, ("categories", "cap"), "quality")
    listed = keys.get("categories")
    if not isinstance(listed, yaml.MappingNode) or not listed.value:
        reader.problem(listed or node, f"quality needs categories: a mapping of names to rules, e.g. {EXAMPLE}")
        return None
    if len(listed.value) > CATEGORIES_MOST:
        reader.problem(listed, f"quality has {len(listed.value)} categories; at most {CATEGORIES_MOST}")
    categories = [c for key, value in listed.value[:CATEGORIES_MOST] if (c := _category(reader, key, value))]
    _each_rule_once(reader, listed, categories)
    cap, percent = _exercise_cap(reader, keys.get("cap"))
    if len(reader.problems) > before or len(categories) != len(listed.value):
        return None
    _known_to_ruff(reader, listed, categories)
    return QualitySpec(tuple(categories), cap, percent)


def _category(reader: Reader, key: yaml.Node, node: yaml.Node) -> Category | None:
    name = reader.text(key, "a quality category's name")
    if not NAME.match(name):
        reader.problem(key, f"quality category '{name}': a name is lower-case letters, digits, '-' or '_' (e.g. naming)")
    where = f"quality category '{name}'"
    keys = reader.mapping(node, CATEGORY_KEYS, where)
    if not isinstance(node, yaml.MappingNode):
        return None
    rules = reader.text_list(keys.get("rules"), f"{where}: rules")
    if not rules:
        reader.problem(keys.get("rules", node), f"{where} needs rules: ruff's codes or their prefixes, e.g. [N8, E501]")
    for rule in rules:
        if not SELECTOR.match(rule):
            reader.problem(keys["rules"], f"{where}: '{rule}' is not a ruff rule code or prefix (e.g. E, N8, B006)")
    mode_text = reader.text(keys.get("mode"), f"{where}: mode", "feedback")
    if mode_text not in set(Mode):
        reader.problem(keys["mode"], f"{where}: mode must be off, feedback or graded, not '{mode_text}'")
        return None
    mode = Mode(mode_text)
    penalty = _points(reader, keys.get("penalty"), f"{where}: penalty")
    cap = _points(reader, keys.get("cap"), f"{where}: cap")
    if mode is Mode.GRADED and penalty is None and "penalty" not in keys:
        reader.problem(node, f"{where} is graded: it needs penalty, the points each issue takes off")
    for extra in ("penalty", "cap"):
        if mode is not Mode.GRADED and extra in keys:
            reader.problem(keys[extra], f"{where}: {extra} is for a graded category; this one is {mode} "
                                        f"(write mode: graded, or drop {extra})")
    return Category(name, rules, mode, penalty or 0.0, cap)


def _points(reader: Reader, node: yaml.Node | None, where: str) -> float | None:
    value = reader.typed(node, float, where, None, "a positive number of points")  # type: ignore[arg-type]
    if value is not None and not 0 < value <= POINTS_MOST:
        reader.problem(node, f"{where} must be a positive number of points, "  # type: ignore[arg-type]
                             f"at most {POINTS_MOST:g}, not {value}")
        return None
    return value


def _exercise_cap(reader: Reader, node: yaml.Node | None) -> tuple[float | None, float | None]:
    """`cap: 3` (points) or `cap: 10%` (of the exercise's points)."""
    if isinstance(node, yaml.ScalarNode) and str(node.value).strip().endswith("%"):
        try:
            percent = float(str(node.value).strip()[:-1])
        except ValueError:
            percent = -1.0
        if not 0 < percent <= 100:
            reader.problem(node, f"quality: cap '{node.value}' must be a share from 0% to 100%, or a number of points")
            return None, None
        return None, percent
    return _points(reader, node, "quality: cap"), None


def _each_rule_once(reader: Reader, node: yaml.Node, categories: list[Category]) -> None:
    seen: dict[str, str] = {}
    for category in categories:
        for rule in category.rules:
            if rule in seen and seen[rule] != category.name:
                reader.problem(node, f"quality: rule '{rule}' is in categories '{seen[rule]}' and "
                                     f"'{category.name}': an issue belongs to one category")
            seen.setdefault(rule, category.name)


def _known_to_ruff(reader: Reader, node: yaml.Node, categories: list[Category]) -> None:
    """Ask the pinned ruff whether every rule names one: a typo fails at load, not at grading."""
    from grader.quality.ruff import unknown_selector  # a subprocess, only for a spec that has quality

    refused = unknown_selector(tuple(rule for category in categories for rule in category.rules))
    if refused:
        named = re.search(r"`([A-Z0-9]+)`", refused)
        rules = [item for _, value in node.value if isinstance(value, yaml.MappingNode)  # type: ignore[attr-defined]
                 for key, listed in value.value if key.value == "rules" and isinstance(listed, yaml.SequenceNode)
                 for item in listed.value]
        where = next((item for item in rules if named and item.value == named[1]), node)
        reader.problem(where, f"quality: {refused}; the rules are ruff's codes (https://docs.astral.sh/ruff/rules/)")


def quality_entry(quality: QualitySpec) -> dict[str, object]:
    """The section as a spec writes it (grader export's bundles carry it, and read it back the same)."""
    categories: dict[str, object] = {}
    for category in quality.categories:
        entry: dict[str, object] = {"rules": list(category.rules), "mode": str(category.mode)}
        if category.mode is Mode.GRADED:
            entry["penalty"] = category.penalty
            if category.cap is not None:
                entry["cap"] = category.cap
        categories[category.name] = entry
    cap = f"{quality.cap_percent:g}%" if quality.cap_percent is not None else quality.cap
    return {"categories": categories, **({"cap": cap} if cap is not None else {})}
