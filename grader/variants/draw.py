"""Draw a variant's named values: the course's params generator run in the sandbox, the way a generated
`given` value with `inside: true` is made (grader.forms.given: its source and args sent with the test, run
in the test's child), called with the student's seed. What it returns must be a small mapping of names to
plain data; anything else is an authoring error naming the spec, its `params` key and the generator.
Kept in the cache folder by what makes them (the generators' source, the function, its args, the seed)."""

from __future__ import annotations

import json
import math
from dataclasses import replace

from grader.cache import cache_dir, keep, key_hash
from grader.errors import SpecError, SpecProblem
from grader.forms.given import Generated
from grader.model import MISSING, CheckerSpec, Exercise, Limits, Params, RunResult, Test

CPU_SECONDS = 1.0  # a generator past this is an authoring error (it hangs, or it draws far too much)
WALL_SECONDS = 2.5  # the backstop that stops a hang: the generator runs before the test's CPU timer is set
MOST_CHARS = 10_000  # the values' JSON text: params are a variant's parameters, not its test data
MOST_NUMBER = 2 ** 53  # beyond it a number loses its digits in JSON, and a page cannot show it exactly
_PLAIN = (bool, int, float, str, type(None))
_drawn: dict[str, dict[str, object]] = {}  # cache key -> values, this process


class ParamsError(SpecError):
    """The params generator failed, hung or returned what a variant cannot be: the spec's author's to fix."""


def draw(exercise: Exercise, seed: int) -> dict[str, object]:
    """The variant's named values for `seed`, drawn once per content and seed."""
    params = exercise.params
    assert params is not None
    try:
        source = params.source.read_bytes()
    except OSError as error:
        raise _error(exercise, params, f"cannot read {params.source}: {error.strerror}") from None
    key = key_hash(source)
    key.update(repr((params.generator, params.args, seed)).encode())
    name = key.hexdigest()
    if name in _drawn:
        return _drawn[name]
    path = cache_dir() / f"params-{name}.json"
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        values = _run(exercise, params, seed)
        keep(path, json.dumps(values).encode())
    _drawn[name] = values
    return values  # type: ignore[no-any-return]


def _run(exercise: Exercise, params: Params, seed: int) -> dict[str, object]:
    from grader.running import SubmissionRun  # a sandbox only when a variant is drawn, not read back

    made = Generated(params.source, params.generator, (*params.args, ("seed", seed)), inside=True)
    test = Test(name="params", call="__params__", stdin=None, compare="value", expect=MISSING, hidden=False,
                big=False, points=1.0, checker=CheckerSpec("exact"), limits=Limits(cpu=CPU_SECONDS, wall=WALL_SECONDS),
                given=(("__params__", made),))
    drawing = replace(exercise, kind="function", entry=None, tests=(test,), prelude="", test_setup="",
                      forbid=(), require=(), limits=Limits(cpu=CPU_SECONDS), params=None)
    with SubmissionRun(drawing, "") as run:
        result = run.run(test)
    problem = _failure(result)
    if problem:
        raise _error(exercise, params, problem)
    problem = _not_params(result.value)
    if problem:
        raise _error(exercise, params, f"returned {problem}")
    return result.value  # type: ignore[return-value]


def _failure(result: RunResult) -> str:
    if result.timed_out:
        return f"did not finish within {WALL_SECONDS:g} s (does it loop forever?)"
    if result.sandbox_error:
        # The generator raising is its test's set-up failing: the sandbox says so with the exception's repr.
        return "failed: " + result.sandbox_error.replace("test set-up failed: ", "raised ")
    if result.output_truncated:
        return "printed too much"
    if result.error_type:
        return f"raised {result.error_type}: {result.error_message}"
    if not result.has_value:
        return "gave no value back (it was stopped, or its value could not be read)"
    return ""


def _not_params(value: object) -> str:
    """Why `value` cannot be a variant's values, or ""."""
    if not isinstance(value, dict) or not value:
        return f"a {type(value).__name__}: a generator returns a non-empty dict of names to values"
    bad = [k for k in value if not (isinstance(k, str) and k.isidentifier())]
    if bad:
        return f"the key {str(bad[0])[:40]!r}: every key must be a name a template can use"
    for name, item in value.items():
        problem = _not_data(item)
        if problem:
            return f"{name} = {problem}"
    text = json.dumps(value)
    if len(text) > MOST_CHARS:
        return f"{len(text)} characters of values: at most {MOST_CHARS} (params name a variant; big test " \
               f"inputs belong in a test's `given`)"
    return ""


def _not_data(item: object, depth: int = 0) -> str:
    if depth > 8:
        return "data nested too deep"
    if isinstance(item, bool) or item is None or isinstance(item, str):
        return ""
    if isinstance(item, int):
        return "" if abs(item) <= MOST_NUMBER else f"a number of {len(str(abs(item)))} digits (at most 2**53)"
    if isinstance(item, float):
        return "" if math.isfinite(item) else f"{item} (not a finite number)"
    if isinstance(item, (list, tuple)):
        return next((p for p in (_not_data(v, depth + 1) for v in item) if p), "")
    if isinstance(item, dict):
        if not all(isinstance(k, str) for k in item):
            return "a mapping whose keys are not all text"
        return next((p for p in (_not_data(v, depth + 1) for v in item.values()) if p), "")
    name = getattr(item, "type_name", type(item).__name__)  # the sandbox sends an object back as its type's name
    return f"a {name} (not plain data: use numbers, text, lists and mappings)"


def _error(exercise: Exercise, params: Params, problem: str) -> ParamsError:
    where = f"params: generator '{params.generator}' of {params.source.name}"
    return ParamsError([SpecProblem(exercise.path, params.line, params.column, f"{where} {problem}")])
