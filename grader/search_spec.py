"""A spec's `search:`: the entry's arguments as strategies, how many inputs to try, a time budget:

    search:
      args:
        xs: {lists: {of: {integers: {min: -1000, max: 1000}}, min_size: 1, max_size: 8}}
      examples: 200
      seconds: 10

Each strategy is a name (`integers`) or a one-key mapping of the name to its options; the options of each
are in STRATEGIES. Everything is checked here, at load time, with file:line:col (docs/search.md)."""

from __future__ import annotations

import difflib
import marshal
from typing import TYPE_CHECKING

from grader.checker_spec import read_checker
from grader.model import CheckerSpec, Limits, Search, Strategy

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader as Reader

SEARCH_KEYS = ("name", "args", "examples", "seconds", "shrinks", "hidden", "points", "checker", "limits",
               "description")
NUMBER, SIZE, FLAG, TEXT = "number", "size", "flag", "text"
# name -> its options and what each takes; "of", "keys", "values" take a strategy, handled apart.
STRATEGIES: dict[str, dict[str, str]] = {
    "integers": {"min": NUMBER, "max": NUMBER},
    "floats": {"min": NUMBER, "max": NUMBER, "nan": FLAG, "infinity": FLAG},
    "text": {"alphabet": TEXT, "min_size": SIZE, "max_size": SIZE},
    "booleans": {},
    "none": {},
    "just": {},  # takes a value, not options
    "sampled": {},  # takes a list of values
    "lists": {"of": "strategy", "min_size": SIZE, "max_size": SIZE, "unique": FLAG},
    "dicts": {"keys": "strategy", "values": "strategy", "min_size": SIZE, "max_size": SIZE},
    "tuples": {},  # takes a list of strategies
    "one_of": {},  # takes a list of strategies
}
DEFAULT_MAX_SIZE = 10  # a collection's size when the spec writes none: small inputs shrink fast and read well
MOST_SIZE = 1000
MOST_EXAMPLES = 10_000
MOST_SECONDS = 600.0
MOST_DEPTH = 8  # strategies inside strategies


def read_search(reader: Reader, node: yaml.Node | None, kind: str, entry: str | None,
                exercise_checker: CheckerSpec, limits: Limits) -> Search | None:
    import yaml

    from grader.limits_spec import read_limits

    if node is None:
        return None
    keys = reader.mapping(node, SEARCH_KEYS, "search")
    if not isinstance(node, yaml.MappingNode):
        return None
    if kind != "function" or entry is None:
        reader.problem(node, "search: is for function exercises: it calls the entry with generated arguments")
        return None
    if "args" not in keys:
        reader.problem(node, "search needs 'args': the entry's arguments, e.g. {xs: {lists: {of: integers}}}")
        return None
    args = _args(reader, keys["args"])
    examples = reader.typed(keys.get("examples"), int, "search: examples", 100, "a whole number")
    seconds = reader.typed(keys.get("seconds"), float, "search: seconds", 10.0, "a number of seconds")
    shrinks = reader.typed(keys.get("shrinks"), int, "search: shrinks", 200, "a whole number")
    for key, value, most in (("examples", examples, MOST_EXAMPLES), ("seconds", seconds, MOST_SECONDS),
                             ("shrinks", shrinks, MOST_EXAMPLES)):
        if key in keys and not 0 < value <= most:
            reader.problem(keys[key], f"search: {key} must be more than 0 and at most {most:g}, not {value:g}")
    checker = read_checker(reader, keys.get("checker"), exercise_checker)
    if args is None:
        return None
    return Search(
        name=reader.text(keys.get("name"), "search: name", "generated inputs") or "generated inputs",
        args=args, examples=examples, seconds=seconds, shrinks=shrinks,
        hidden=reader.typed(keys.get("hidden"), bool, "search: hidden", False, "true or false"),
        points=reader.typed(keys.get("points"), float, "search: points", 1.0, "a number"),
        checker=checker, limits=read_limits(reader, keys.get("limits"), limits, "search: limits"),
        line=node.start_mark.line + 1,
        description=reader.text(keys.get("description"), "search: description"),
    )


def _args(reader: Reader, node: yaml.Node) -> tuple[tuple[str, Strategy], ...] | None:
    """`{xs: S, k: S}` (named, in order) or `[S, S]` (named a, b, ...): each argument's strategy."""
    import yaml

    if isinstance(node, yaml.SequenceNode):
        pairs = [(chr(ord("a") + index), item) for index, item in enumerate(node.value[:26])]
    elif isinstance(node, yaml.MappingNode):
        pairs = [(str(key.value), value) for key, value in node.value]
        for key, _ in node.value:
            if not str(key.value).isidentifier() or str(key.value).startswith("_"):
                reader.problem(key, f"search: args: '{key.value}' is not a plain Python name")
                return None
    else:
        reader.problem(node, "search: args must be a mapping of argument names to strategies, or a list")
        return None
    if not pairs:
        reader.problem(node, "search: args is empty: name at least one argument")
        return None
    strategies = [(name, _strategy(reader, value, f"search: args: {name}", 0)) for name, value in pairs]
    if any(strategy is None for _, strategy in strategies):
        return None
    return tuple((name, strategy) for name, strategy in strategies if strategy is not None)


def _strategy(reader: Reader, node: yaml.Node, where: str, depth: int) -> Strategy | None:
    import yaml

    if depth > MOST_DEPTH:
        reader.problem(node, f"{where}: strategies nest more than {MOST_DEPTH} deep")
        return None
    if isinstance(node, yaml.ScalarNode):
        name, body = str(node.value), None
    elif isinstance(node, yaml.MappingNode) and len(node.value) == 1:
        name, body = str(node.value[0][0].value), node.value[0][1]
    else:
        reader.problem(node, f"{where} must be a strategy: a name (integers) or one name with its options "
                             f"({{integers: {{min: 0, max: 9}}}})")
        return None
    if name not in STRATEGIES:
        close = difflib.get_close_matches(name, STRATEGIES, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        reader.problem(node, f"{where}: unknown strategy '{name}'{hint}; known strategies: {', '.join(STRATEGIES)}")
        return None
    inner = f"{where}: {name}"
    if name in ("just", "sampled"):
        return _values(reader, node, body, name, inner)
    if name in ("tuples", "one_of"):
        if not isinstance(body, yaml.SequenceNode) or not body.value:
            reader.problem(body or node, f"{inner} takes a non-empty list of strategies")
            return None
        parts = [_strategy(reader, item, inner, depth + 1) for item in body.value]
        return Strategy(name, (), tuple(p for p in parts if p is not None)) if None not in parts else None
    return _with_options(reader, node, body, name, inner, depth)


def _with_options(reader: Reader, node: yaml.Node, body: yaml.Node | None, name: str, where: str,
                  depth: int) -> Strategy | None:
    import yaml

    allowed = STRATEGIES[name]
    keys = reader.mapping(body, tuple(allowed), where) if body is not None and not (
        isinstance(body, yaml.ScalarNode) and body.tag.endswith(":null")) else {}
    options: dict[str, object] = {}
    parts: list[Strategy] = []
    for key, value_node in keys.items():
        what = allowed[key]
        if what == "strategy":
            part = _strategy(reader, value_node, f"{where}: {key}", depth + 1)
            if part is None:
                return None
            parts.append(part)
            continue
        value = reader.value(value_node)
        if what == FLAG and not isinstance(value, bool):
            reader.problem(value_node, f"{where}: {key} must be true or false")
        elif what == TEXT and (not isinstance(value, str) or not value):
            reader.problem(value_node, f"{where}: {key} must be non-empty text")
        elif what == SIZE and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MOST_SIZE):
            reader.problem(value_node, f"{where}: {key} must be a whole number from 0 to {MOST_SIZE}")
        elif what == NUMBER and (isinstance(value, bool) or not isinstance(value, (int, float))
                                 or (name == "integers" and not isinstance(value, int)) or value != value):
            reader.problem(value_node, f"{where}: {key} must be a {'whole ' if name == 'integers' else ''}number")
        else:
            options[key] = value
            continue
        return None
    for low, high in (("min", "max"), ("min_size", "max_size")):
        if low in options and high in options and options[low] > options[high]:  # type: ignore[operator]
            reader.problem(body or node, f"{where}: {low} ({options[low]}) is more than {high} ({options[high]})")
            return None
    if name == "floats" and (options.get("nan") or options.get("infinity")) and ("min" in options or "max" in options):
        reader.problem(body or node, f"{where}: nan and infinity are outside any min and max: leave them out")
        return None
    if name == "dicts" and parts and parts[0].name in ("lists", "dicts"):
        reader.problem(body or node, f"{where}: keys must be hashable (numbers, text, tuples), not {parts[0].name}")
        return None
    if name in ("lists", "dicts"):
        missing = [key for key, what in allowed.items() if what == "strategy" and key not in keys]
        if missing:
            reader.problem(body or node, f"{where} needs {' and '.join(repr(m) for m in missing)}: "
                                         f"the strategy of its items")
            return None
    return Strategy(name, tuple(sorted(options.items())), tuple(parts))


def _values(reader: Reader, node: yaml.Node, body: yaml.Node | None, name: str, where: str) -> Strategy | None:
    import yaml

    if body is None:
        reader.problem(node, f"{where} takes {'a value' if name == 'just' else 'a list of values'}")
        return None
    value = reader.value(body)
    values = [value] if name == "just" else value
    if name == "sampled" and (not isinstance(body, yaml.SequenceNode) or not values):
        reader.problem(body, f"{where} takes a non-empty list of values")
        return None
    try:
        marshal.dumps(values)  # how the sandbox gets them
    except ValueError:
        reader.problem(body, f"{where}: the values must be plain data (numbers, text, lists, dicts)")
        return None
    return Strategy(name, (("values", marshal.dumps(values)),))  # bytes: a record stays hashable
