"""`given`: names bound for a test's call or steps, as plain YAML values or made by a function of the
course's generators.py. Generated in the grader once, kept in the cache folder by content (the generators'
source, the function and its args), and sent to the sandbox as data (a long list of numbers, or a numpy
array, as its raw bytes: given_request); the expected-value cache key takes the data's digest. A hidden
test's generated input is never shown: outcomes show no input at all."""

from __future__ import annotations

import ast
import marshal
import pickle
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from grader.cache import cache_dir, keep, key_hash
from grader.model import Test
from grader.records import record

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader

GENERATORS = "generators.py"  # beside the exercise specs
_made: dict[str, tuple[object, str]] = {}  # content key -> (value, digest of its data), this process


@record
class Generated:
    """A `given` value made by a function of the course's generators.py, in the grader (grader.forms.given)."""

    source: Path  # the generators.py file
    generator: str
    args: tuple[tuple[str, object], ...] = ()
    inside: bool = False
    """`inside: true`: made in the sandbox, from generators.py's source and the args, for each test that
    names it (the reference's too), instead of made here and sent; the grader makes it only for a
    checker that reads the call's arguments."""


class GenerationError(Exception):
    """The course's generator failed: a grader error, never the student's."""


def read_given(reader: SpecReader, node: yaml.Node, where: str, spec_path: Path) -> tuple[tuple[str, object], ...]:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        reader.problem(node, f"given of {where} must be a mapping of names to values")
        return ()
    given: list[tuple[str, object]] = []
    for key_node, value_node in node.value:
        name = str(key_node.value)
        if not name.isidentifier():
            reader.problem(key_node, f"given of {where}: '{name}' is not a Python name")
            continue
        if isinstance(value_node, yaml.MappingNode) and any(k.value == "generator" for k, _ in value_node.value):
            generated = _generated(reader, value_node, f"given '{name}' of {where}", spec_path.parent / GENERATORS)
            if generated is not None:
                given.append((name, generated))
            continue
        value = reader.value(value_node)  # type: ignore[attr-defined]
        try:
            marshal.dumps(value)  # how the sandbox gets it
        except ValueError:
            reader.problem(value_node, f"given '{name}' of {where} is a {type(value).__name__}: "
                                       f"the sandbox takes lists, dicts, text and numbers")
            continue
        given.append((name, value))
    return tuple(given)


def _generated(reader: SpecReader, node: yaml.Node, where: str, source: Path) -> Generated | None:
    keys = reader.mapping(node, ("generator", "args", "inside"), where)  # type: ignore[attr-defined]
    function = reader.text(keys.get("generator"), "generator")
    args = reader.value(keys["args"]) if "args" in keys else {}  # type: ignore[attr-defined]
    inside = reader.value(keys["inside"]) if "inside" in keys else False  # type: ignore[attr-defined]
    if not isinstance(inside, bool):
        reader.problem(keys["inside"], f"inside of {where} must be true or false")
        return None
    if not isinstance(args, dict) or not all(isinstance(k, str) and k.isidentifier() for k in args):
        reader.problem(keys.get("args", node), f"the args of {where} must be a mapping of names to values")
        return None
    try:
        marshal.dumps(args)  # the sandbox gets them when it makes the value itself
    except ValueError:
        reader.problem(keys.get("args", node), f"the args of {where} must be plain data")
        return None
    if not source.is_file():
        reader.problem(keys["generator"], f"{where} names generator '{function}' but there is no {source}")
        return None
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    except (SyntaxError, UnicodeDecodeError) as error:
        reader.problem(keys["generator"], f"{where}: {source.name} is not valid Python ({error})")
        return None
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if function not in defined:
        known = f"; it defines {', '.join(sorted(defined))}" if defined else ""
        reader.problem(keys["generator"], f"{where}: {source.name} defines no function '{function}'{known}")
        return None
    return Generated(source, function, tuple(sorted(args.items())), inside)


RAW_ITEMS = 1024  # a list of only floats (or only ints) this long, or any numpy array, goes as raw bytes
_RAW_ARRAY_KINDS = "biufc"  # numpy dtypes sent as their bytes: numbers and booleans, never objects
Raw = tuple[str, str, tuple[int, ...], bytes]  # (form: "list" or "array", typecode or dtype, shape, bytes)
# id(value) -> (what marshal carries, its raw parts by key: None for the value itself, else a dict's key);
# only for generated values, which live as long as the process (kept in _made): made once, sent by every test.
_split: dict[int, tuple[object, list[tuple[object, Raw]]]] = {}


def given_request(test: Test) -> dict[str, object]:
    """The harness request's part for the test's given names: small values in "given" (marshal), big lists of
    numbers and numpy arrays (alone, or as a dict's values: a table's columns) as raw bytes in "attachments",
    named in "given_raw" (name, "list" or "array", typecode or dtype, shape, index, and the dict's key for a
    column). A generated value's raw form is made once per process."""
    plain: dict[str, object] = {}
    raw: list[tuple[object, ...]] = []
    attachments: list[bytes] = []
    made: list[tuple[str, str, str, dict[str, object]]] = []
    for name, given in test.given:
        if isinstance(given, Generated) and given.inside:  # made by the sandbox from the generators' source
            made.append((name, _source_text(given), given.generator, dict(given.args)))
            continue
        value = _made_value(given)[0] if isinstance(given, Generated) else given
        plain[name], parts = split_raw(value)
        for key, (form, code, shape, data) in parts:
            raw.append((name, form, code, shape, len(attachments), *(() if key is None else (key,))))
            attachments.append(data)
    fields: dict[str, object] = {"given": plain}
    if raw:
        fields.update(given_raw=raw, attachments=attachments)
    if made:
        fields["given_made"] = made
    return fields


def split_raw(value: object) -> tuple[object, list[tuple[object, Raw]]]:
    """What of `value` goes as marshal data, and its parts that go raw: the value itself, or the values of a
    dict (keys that are str or int) that are big lists or arrays, left as None in the marshalled dict."""
    key = id(value)
    if key in _split and _kept(value):
        return _split[key]
    whole = raw_form(value)
    split: tuple[object, list[tuple[object, Raw]]] = (None, [(None, whole)]) if whole is not None else (value, [])
    if whole is None and type(value) is dict and all(type(k) in (str, int) for k in value):
        columns = [(k, raw_form(item)) for k, item in value.items()]
        parts = [(k, packed) for k, packed in columns if packed is not None]
        if parts:
            split = ({k: None if packed is not None else value[k] for k, packed in columns}, parts)
    if _kept(value):
        _split[key] = split
    return split


def _source_text(generated: Generated) -> str:
    try:
        return generated.source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise GenerationError(f"cannot read {generated.source}: {error}") from None


def raw_form(value: object) -> Raw | None:
    """(form, code, shape, bytes) of a value sent raw, or None for one sent as marshal data."""
    if type(value) is list and len(value) >= RAW_ITEMS:
        import array

        kinds = set(map(type, value))
        if kinds == {float} or kinds == {int}:
            code = "d" if float in kinds else "q"
            try:
                numbers = array.array(code, value)
            except OverflowError:  # an int past 64 bits: marshal takes it
                return None
            if sys.byteorder != "little":
                numbers.byteswap()
            return ("list", code, (len(value),), numbers.tobytes())
    elif _is_array(value):
        little = value.astype(value.dtype.newbyteorder("<"), copy=False)  # type: ignore[attr-defined]
        return ("array", little.dtype.str, tuple(value.shape), little.tobytes())  # type: ignore[attr-defined]
    return None


def _kept(value: object) -> bool:
    """Whether `value` is one of this process's generated values, which live as long as it (id stays valid)."""
    return any(made is value for made, _ in _made.values())


def _is_array(value: object) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and type(value) is numpy.ndarray and value.dtype.kind in _RAW_ARRAY_KINDS


def given_values(test: Test) -> dict[str, object]:
    """The test's given names and their values, generated ones made (or read from the cache)."""
    return {name: _made_value(value)[0] if isinstance(value, Generated) else value for name, value in test.given}


def given_digest(test: Test) -> str:
    """A digest of the test's given data, for the expected-value cache key."""
    digest = key_hash()
    for name, value in test.given:
        if isinstance(value, Generated) and value.inside:  # its input is what the code and args make
            part = "inside:" + _content_key(value)
        else:
            part = _made_value(value)[1] if isinstance(value, Generated) else repr(value)
        digest.update(f"{name}={part}".encode() + b"\0")
    return digest.hexdigest()


def _content_key(generated: Generated) -> str:
    """The generators' source, the function and its args, digested: what the value is made from."""
    try:
        source = generated.source.read_bytes()
    except OSError as error:
        raise GenerationError(f"cannot read {generated.source}: {error.strerror}") from None
    content = key_hash(source)
    content.update(repr((generated.generator, generated.args)).encode())
    return content.hexdigest()


def _made_value(generated: Generated) -> tuple[object, str]:
    key = _content_key(generated)
    if key in _made:
        return _made[key]
    path = cache_dir() / f"generated-{key}.pickle"
    data = _read_bytes(path)
    if data is None:
        data = pickle.dumps(_generate(generated, generated.source.read_bytes()), protocol=pickle.HIGHEST_PROTOCOL)
        keep(path, data)
    value = pickle.loads(data)  # the grader's own cache folder (0700), hidden from every sandbox
    _made[key] = (value, key_hash(data).hexdigest())
    return _made[key]


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _generate(generated: Generated, source: bytes) -> object:
    where = f"generator {generated.generator} of {generated.source}"
    namespace: dict[str, object] = {"__name__": "generators", "__file__": str(generated.source)}
    try:
        exec(compile(source, str(generated.source), "exec"), namespace)  # the instructor's own code, trusted
        value = namespace[generated.generator](**dict(generated.args))  # type: ignore[operator]
    except Exception as error:  # noqa: BLE001 - the course's code failing is a grader error, said so
        raise GenerationError(f"{where} raised {type(error).__name__}: {error}") from None
    if _is_array(value):  # sent as its raw bytes (given_request): numbers and booleans only
        return value
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):  # marshal would send a subclass's bytes
        raise GenerationError(f"{where} returned a {type(value).__name__} of dtype {value.dtype}: the sandbox "
                              f"takes numpy arrays (numpy.ndarray itself) of numbers and booleans")
    try:
        marshal.dumps(value)  # how the sandbox gets it: plain data only
    except ValueError as error:
        raise GenerationError(f"{where} returned data the sandbox cannot take ({error}): return lists, "
                              f"tuples, dicts, str, int, float...") from None
    return value


def unreadable_arguments(call: str, test: Test) -> list[str]:
    """The call's positional arguments a checker cannot be given (call_arguments makes them None): neither
    a literal nor a `given` name, as their source text."""
    try:
        tree = ast.parse(call, mode="eval").body
    except SyntaxError:
        return []
    if not isinstance(tree, ast.Call):
        return []
    unreadable = []
    for arg in tree.args:
        if isinstance(arg, ast.Name) and arg.id in dict(test.given):
            continue
        try:
            ast.literal_eval(arg)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            unreadable.append(ast.unparse(arg))
    return unreadable


def call_arguments(call: str, test: Test) -> tuple[object, ...]:
    """The call's positional argument values: literals, or given names (None for anything else)."""
    try:
        tree = ast.parse(call, mode="eval").body
    except SyntaxError:
        return ()
    if not isinstance(tree, ast.Call):
        return ()
    given = dict(test.given)
    values: list[object] = []
    for arg in tree.args:
        if isinstance(arg, ast.Name) and arg.id in given:
            values.append(given_values(test)[arg.id])
        else:
            try:
                values.append(ast.literal_eval(arg))
            except (ValueError, TypeError, SyntaxError, RecursionError):
                values.append(None)
    return tuple(values)
