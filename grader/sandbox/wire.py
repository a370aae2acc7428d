"""What goes over the sandbox's pipes: the harness (sent first), then length-prefixed frames, marshal going
in and tagged JSON coming back."""

from __future__ import annotations

import functools
import json
import marshal
import os
import select
import sys
import time
import types
from pathlib import Path

from grader.cache import cache_dir, key_hash, write_atomically
from grader.model import Opaque
from grader.records import record

# The harness, in files by job, sent as one text: they share one namespace; main() starts it (a fork
# server, forks.py, loads the body once and calls main() in each child).
HARNESS_BODY = "\n".join(Path(__file__).with_name(name).read_text()
                         for name in ("harness.py", "harness_values.py", "harness_load.py", "harness_channel.py",
                                      "harness_child.py", "harness_cleanup.py", "harness_data.py"))
HARNESS = HARNESS_BODY + "\nmain()\n"
# What the sandbox's interpreter is started with: it runs the harness that the grader sends first on fd 3,
# compiled once and kept (compiled from -c text, it cost every sandbox ~8 ms of CPU), or compiles the
# source sent along when its bytecode is another Python version's.
BOOTSTRAP = """\
import marshal, os, sys
def _harness():
    def exact(size):
        data = b""
        while len(data) < size:
            chunk = os.read(3, size - len(data))
            if not chunk:
                os._exit(0)
            data += chunk
        return data
    tag, code, source = marshal.loads(exact(int.from_bytes(exact(4), "big")))
    return marshal.loads(code) if tag == sys.implementation.cache_tag else compile(source, "<harness>", "exec")
exec(_harness())
"""
REPLY_CAP = 16 << 20  # bytes: a reply frame larger than this is the submission's fault (a result: 12 MB)


@record
class Frame:
    """A reply from the sandbox, or why none came."""

    data: dict[str, object] | None
    wall_seconds: float
    cpu_seconds: float  # the parent's own reading of the sandbox's CPU, from /proc
    failure: str = ""  # "timeout", "died", "garbled", "oversized"
    oom_killed: bool = False  # the submission's cgroup reached its memory limit (a refusal, an OOM kill)


def framed(message: dict[str, object]) -> list[bytes]:
    """A request's parts, written in turn: 4 bytes of length, its marshal data, then its "attachments"
    (bytes: a big given value's raw numbers) as they are, never joined into a copy; the marshal part lists
    only their sizes. The harness reads each into a buffer of its own (harness.receive): a million floats
    cost it one read, not an unmarshal of a million objects."""
    attachments = list(message.get("attachments") or ())  # type: ignore[call-overload]
    if attachments:
        message = {**message, "attachments": [len(part) for part in attachments]}
    data = marshal.dumps(message)
    return [len(data).to_bytes(4, "big") + data, *attachments]


PIPE_SIZE = 1 << 20  # the unprivileged maximum by default: a million numbers cross in 14 writes, not 220


def widen(*pipes: int) -> None:
    """Give the pipes a 1 MB buffer (the default is 64 KB) where the system allows it; an optimisation only."""
    import fcntl

    for fd in pipes:
        try:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        except OSError:
            pass


def send(fd: int, frame: bytes | list[bytes]) -> None:
    """Write every part in order with one writev: the sandbox, blocked reading, wakes once per request, not
    once per part (each wake-up cost both sides ~0.1 ms of CPU)."""
    views = [memoryview(part) for part in ([frame] if isinstance(frame, bytes) else frame) if len(part)]
    try:
        while views:
            count = os.writev(fd, views[:1024])
            while views and count >= len(views[0]):  # a write into a full pipe can end part-way: the rest follows
                count -= len(views[0])
                views.pop(0)
            if views and count:
                views[0] = views[0][count:]
    except (BrokenPipeError, OSError):
        pass  # the sandbox died; the read of its reply reports it


def read_frame(replies: int, pidfd: int, deadline: float) -> tuple[dict[str, object] | None, str]:
    """The next reply frame, or why none came by the deadline. Death is seen through the pidfd, not EOF:
    an escaped grandchild may hold the reply pipe open."""
    buffer = bytearray(4)  # then the frame's size at once, filled in place by readv: no copy of a big reply
    got = 0
    while got < len(buffer):
        left = deadline - time.monotonic()
        if left <= 0:
            return None, "timeout"
        ready = select.select([replies, pidfd], [], [], left)[0]
        if not ready:
            return None, "timeout"
        if replies not in ready:
            return None, "died"
        count = os.readv(replies, [memoryview(buffer)[got:]])
        if not count:
            return None, "died"
        got += count
        if len(buffer) == 4 and got == 4:
            size = int.from_bytes(buffer, "big")
            if size + 4 > REPLY_CAP:
                return None, "oversized"
            buffer, got = bytearray(size), 0
    data = decode(buffer, attached="result")  # the test child's own result, after a NUL
    return (data, "") if isinstance(data, dict) else (None, "garbled")


@record
class Attached:
    """The binary part of a reply frame, in place in the frame's buffer: a test child's result (its own JSON
    text, then its raw numbers), decoded by replies.py with `decode(part.buffer, part.start)`."""

    buffer: bytearray
    start: int


def decode(data: bytes | bytearray, start: int = 0, attached: str = "", why: list[str] | None = None,
           flat: set[int] | None = None) -> object:
    """A reply's JSON, tags turned back into tuples, sets, dicts, bytes and Opaque; None when unreadable.
    json.loads is C and linear: a hostile 12 MB reply costs seconds, not the minutes of ast.literal_eval.
    NaN reads as a float (a returned value may hold one: the checker decides), never as a number the grader
    uses (replies.py reads no float of a reply); a set or dict whose items
    collide in hash is refused, since building it would cost the grader time quadratic in its size.
    A NUL ends the JSON text (JSON text holds none); the bytes after it are its binary part. With
    `attached`, they are that key's value (Attached: a reply frame's test result); else the raw numbers the
    text's array and list tags point to, read in place (numpy.frombuffer over the buffer: never copied).
    Whatever fails while a value is rebuilt (a dtype numpy or pandas cannot build, a module it would
    import, a shape that does not fit) makes the reply unreadable, never an error of the grader's: the
    reason goes into `why`, for the test's feedback. `flat` gets the id of each list built from raw numbers
    (numbers only, nothing nested: whoever checks the value's depth need not walk a million items)."""
    end = data.find(b"\0", start)
    view = memoryview(data)
    text = view[start:] if end < 0 else view[start:end]
    try:
        if end >= 0 and attached:
            decoded = json.loads(bytes(text), object_hook=_untag, parse_constant=_constant)
            if isinstance(decoded, dict):
                decoded[attached] = Attached(data, end + 1)  # type: ignore[arg-type]
            return decoded
        hook = _untag if end < 0 else functools.partial(_untag_with, Binary(view[end + 1:], flat))
        return json.loads(bytes(text), object_hook=hook, parse_constant=_constant)
    except Exception as error:  # noqa: BLE001 - anything the reply makes a reader raise is the reply's fault
        if why is not None:
            why.append(_reason(error))
        return None


def _reason(error: BaseException) -> str:
    """Why a reply could not be read, in a line (the reply's own text bounded: it is the submission's)."""
    if isinstance(error, Unreadable):
        return str(error)[:300]
    if isinstance(error, (json.JSONDecodeError, UnicodeError)):
        return "its text is not valid JSON"
    if isinstance(error, RecursionError):
        return "it is nested too deeply"
    return f"{type(error).__name__}: {str(error)[:200]}"


class Unreadable(ValueError):
    """A tagged value the grader will not or cannot build; its text says which and why."""


class Binary:
    """A reply's binary part, handed out by (offset, size): each byte of it at most once, so that a forged
    text naming the same million numbers a thousand times cannot make the grader build a thousand lists."""

    __slots__ = ("view", "left", "flat")

    def __init__(self, view: memoryview, flat: set[int] | None = None) -> None:
        self.view = view
        self.left = len(view)
        self.flat = flat  # see decode

    def take(self, offset: int, size: int) -> memoryview:
        if type(offset) is not int or type(size) is not int or offset < 0 or size < 0 or \
                offset + size > len(self.view) or size > self.left:
            raise ValueError("raw numbers past the reply's binary part")
        self.left -= size
        return self.view[offset:offset + size]


HASH_SHARE = 16  # items of one set or dict that may share a hash: plain data hardly ever has two


def _constant(name: str) -> float:
    return float(name)  # NaN, Infinity, -Infinity: a returned float may be any of them


def _hashable(items: list[object]) -> list[object]:
    """`items`, checked to be fit for a set: hashable, and no more than HASH_SHARE of them with one hash.
    Counting by sorting the hashes costs no hashing of ours (hashes of hashes are distinct)."""
    hashes = sorted(map(hash, items))
    run = 1
    for before, after in zip(hashes, hashes[1:]):
        run = run + 1 if before == after else 1
        if run > HASH_SHARE:
            raise ValueError("a set or dict whose items collide in hash")
    return items


def _set(items: list[object]) -> set[object]:
    return set(_hashable(items))


def _dict(pairs: list[list[object]]) -> dict[object, object]:
    if any(type(pair) is not list or len(pair) != 2 for pair in pairs):
        raise ValueError("a dict's items are [key, value] pairs")
    _hashable([key for key, _ in pairs])
    return {key: value for key, value in pairs}


def _opaque(name: object) -> Opaque:
    if type(name) is not str:
        raise ValueError("an opaque value is named by a str")
    return Opaque(name[:100])


@record
class Items:
    """An iterable that is not plain data (a generator, a map, a dict view, a deque, a Counter) as its
    items, read in the sandbox: `form` is "seq", "set" (set-like: a dict's keys), "map" ((key, value)
    pairs) or "one" (its class's == is identity: a generator, a map, dict.values()). Compared by the checkers as the items of its type, never by anything of the submission's."""

    type_name: str
    form: str
    items: tuple[object, ...]

    def __repr__(self) -> str:
        if self.form == "map":
            return f"{self.type_name}({{{', '.join(f'{k!r}: {v!r}' for k, v in self.items)}}})"  # type: ignore[misc]
        return f"{self.type_name}({list(self.items)!r})"


@record
class Fields:
    """A dataclass instance (eq=True) as its class's name and its compared fields, in order."""

    type_name: str
    fields: tuple[tuple[str, object], ...]

    def __repr__(self) -> str:
        return f"{self.type_name}({', '.join(f'{name}={value!r}' for name, value in self.fields)})"


NAME_CAP = 100  # characters of a type's or a field's name a reply may carry
DECIMAL_CAP = 400  # characters of a Decimal's text


def _name(value: object) -> str:
    if type(value) is not str:
        raise ValueError("a name is a str")
    return value[:NAME_CAP]


def _fraction(fields: object) -> object:
    import fractions

    if type(fields) is not list or len(fields) != 2 or not all(type(n) is int for n in fields) or fields[1] <= 0:
        raise ValueError("a fraction is [numerator, positive denominator]")
    return fractions.Fraction(fields[0], fields[1])


def _decimal(text: object) -> object:
    import decimal

    if type(text) is not str or len(text) > DECIMAL_CAP:
        raise ValueError("a decimal is its text")
    return decimal.Decimal(text)


def _fields(fields: object) -> Fields:
    if type(fields) is not list or len(fields) != 2 or type(fields[1]) is not list or \
            any(type(pair) is not list or len(pair) != 2 for pair in fields[1]):
        raise ValueError("a dataclass is [name, [[field, value], ...]]")
    return Fields(_name(fields[0]), tuple((_name(name), value) for name, value in fields[1]))


def _items(fields: object) -> Items:
    if type(fields) is not list or len(fields) != 3 or fields[1] not in ("seq", "set", "map", "one") or \
            type(fields[2]) is not list:
        raise ValueError("an iterable is [type name, form, items]")
    items = fields[2]
    if fields[1] == "map":
        if any(type(pair) is not list or len(pair) != 2 for pair in items):
            raise ValueError("a mapping's items are [key, value] pairs")
        return Items(_name(fields[0]), "map", tuple(tuple(pair) for pair in items))
    return Items(_name(fields[0]), fields[1], tuple(items))


def _data(tag: str):  # type: ignore[no-untyped-def]
    """A numpy or pandas tag's reader (grader/data_values.py), imported at the first such value only."""
    def read(fields: object, blobs: Binary | None = None) -> object:
        from grader.data_values import NAMES, TAGS

        try:
            return TAGS[tag](fields, blobs)
        except Exception as error:  # noqa: BLE001 - numpy and pandas raise what they like (ImportError...)
            raise Unreadable(f"a {NAMES[tag]} the grader cannot rebuild ({type(error).__name__}: "
                             f"{str(error)[:200]})") from None
    return read


def _numbers(code: str):  # type: ignore[no-untyped-def]
    """A raw list of floats ("d") or ints ("q") read back: [offset, count] in the binary part."""
    def read(fields: object, blobs: Binary | None = None) -> list[object]:
        import array

        if blobs is None or type(fields) is not list or len(fields) != 2 or \
                not all(type(n) is int and n >= 0 for n in fields):
            raise ValueError("a raw list is [offset, count] in the binary part")
        offset, count = fields
        raw = blobs.take(offset, count * 8)
        if sys.byteorder == "little":
            numbers = raw.cast(code).tolist()  # straight from the frame's buffer: no copy of 8 MB first
        else:
            packed = array.array(code)
            packed.frombytes(raw)
            packed.byteswap()
            numbers = packed.tolist()
        if blobs.flat is not None:
            blobs.flat.add(id(numbers))
        return numbers
    return read


_TAGS = {"$t": tuple, "$s": _set, "$d": _dict, "$b": lambda s: s.encode("latin-1"), "$o": _opaque,
         "$q": _fraction, "$D": _decimal, "$c": _fields, "$i": _items}
_RAW_TAGS = {**{tag: _data(tag) for tag in ("$nd", "$ns", "$ln", "$pi", "$ps", "$pf")},
             "$lf": _numbers("d"), "$li": _numbers("q")}


def _untag(obj: dict[str, object]) -> object:
    return _untag_with(None, obj)


def _untag_with(blobs: Binary | None, obj: dict[str, object]) -> object:
    if len(obj) == 1:
        (key, inner), = obj.items()
        if key in _TAGS:
            return _TAGS[key](inner)
        if key in _RAW_TAGS:
            return _RAW_TAGS[key](inner, blobs)
    return obj


@functools.cache  # once per process
def harness_frame() -> bytes:
    """The bootstrap's first frame: (our bytecode's tag, the harness compiled, its source)."""
    tag = sys.implementation.cache_tag
    data = marshal.dumps((tag, _compiled_harness(tag), HARNESS))
    return len(data).to_bytes(4, "big") + data


def _compiled_harness(tag: str) -> bytes:
    """The harness compiled and marshalled, kept in the cache folder (keyed by its source and the bytecode
    tag): compiling it costs the grader ~3 ms. Keeping it is only a saving, never a reason to fail."""
    try:
        path = cache_dir() / f"harness-{key_hash((tag + HARNESS).encode()).hexdigest()}.marshal"
    except OSError:
        return marshal.dumps(compile(HARNESS, "<harness>", "exec"))
    try:
        code = path.read_bytes()
        if isinstance(marshal.loads(code), types.CodeType):  # a damaged copy would break every sandbox
            return code
    except (OSError, EOFError, ValueError, TypeError):
        pass
    code = marshal.dumps(compile(HARNESS, "<harness>", "exec"))
    try:
        write_atomically(path, code)
    except OSError:
        pass
    return code
