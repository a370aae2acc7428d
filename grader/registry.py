"""The one way to register what varies (kinds, test forms, checkers, hand-in forms, batch layouts, outputs,
mutation rules, commands, resource groups): a `Registry` of named entries, each an object or the
"module:attribute" of one, imported on first use; and, for the registries that name an entry-point group,
what installed packages add.

Lazy because a `grader check` uses one kind and one or two test forms: importing every kind and form at
start-up was a large part of a check's start (issue 13's budget). For the same reason installed packages are
looked for (importlib.metadata, a scan of every installed distribution) only when a name is not found among
the grader's own, or when every name is listed (a `--help`, an error message, the server's format list).
A test or a course registers a ready object the same way, by name. docs/extending.md tells how."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from importlib import import_module
from typing import Generic, TypeVar, overload

T = TypeVar("T")
# A plugin's name: what a spec or a command line writes (`--outputs a,b` splits on commas, a spec is YAML).
NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
MAX_NAME = 64
# One look at the installed packages at a time: the server asks from several threads, and a thread that
# found the look begun must wait for its end, not read a half-made list. Re-entrant: a package's module may
# ask a registry while it is imported.
_LOOKING = threading.RLock()


class RegistrationError(Exception):
    """A name registered twice: the second would silently replace the first (a built-in among them)."""


def load(where: str) -> object:
    """The attribute named by "module:attribute", or the module named by "module", imported now."""
    module, _, attribute = where.partition(":")
    return getattr(import_module(module), attribute) if attribute else import_module(module)


class Registry(MutableMapping[str, T], Generic[T]):
    """`entries`: name -> object, or name -> "module:attribute"; with `instantiate`, the attribute is a
    class and the entry is an instance of it. `what` names an entry in messages ("output format").
    `group`: the entry-point group installed packages add entries through; `adopt` turns what such an
    entry point loads into an entry, raising TypeError (with the reason) for what is no entry."""

    def __init__(self, entries: Mapping[str, T | str] | None = None, instantiate: bool = False, *,
                 what: str = "entry", group: str | None = None,
                 adopt: Callable[[object], T] | None = None) -> None:
        self._entries: dict[str, T | str] = dict(entries or {})
        self._instantiate = instantiate
        self.what = what
        self.group = group
        self._adopt = adopt
        self._looked = group is None  # installed packages looked at (never, without a group)
        self._looking = False  # being looked at now, by the thread that holds _LOOKING

    # ------------------------------------------------------------ reading
    def __getitem__(self, name: str) -> T:
        if name not in self._entries:
            self._look_at_plugins()
        entry = self._entries[name]
        if isinstance(entry, str):
            loaded = load(entry)
            entry = self._entries[name] = loaded() if self._instantiate else loaded  # type: ignore[operator]
        return entry  # type: ignore[return-value]

    def __contains__(self, name: object) -> bool:
        if name in self._entries:
            return True
        self._look_at_plugins()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self._look_at_plugins()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self._look_at_plugins()
        return len(self._entries)

    def names(self, keep: Callable[[T], bool] | None = None, *, first: Sequence[str] = (),
              ordered: bool = False) -> Names:
        """The names of the entries `keep` keeps, read when asked (see Names): what a command line's
        choices, an API's enum and an error message list. `first`: names put before them, always in."""
        def listed() -> tuple[str, ...]:
            kept = [name for name in self if name not in first and (keep is None or keep(self[name]))]
            return (*first, *(sorted(kept) if ordered else kept))

        def has(name: str) -> bool:
            return name in first or (isinstance(name, str) and name in self and (keep is None or keep(self[name])))

        return Names(listed, has)

    # ------------------------------------------------------------ writing
    @overload
    def register(self, name: str) -> Callable[[T], T]: ...
    @overload
    def register(self, name: str, entry: T | str) -> T | str: ...

    def register(self, name: str, entry: object = None) -> object:
        """Add `entry` under `name`, or, with no entry, a decorator that adds what it decorates. A name
        registered already is refused (RegistrationError), unless it is the same object again."""
        if entry is None:
            def decorate(item: T) -> T:
                self.register(name, item)
                return item
            return decorate
        present = self._entries.get(name)
        if present is not None and present is not entry:
            raise RegistrationError(f"{self.what} '{name}' is registered already ({_described(present)}); "
                                    f"{_described(entry)} needs another name")
        self._entries[name] = entry  # type: ignore[assignment]
        return entry

    def __setitem__(self, name: str, entry: T) -> None:
        """Set a line as it is, replacing one (a test's `monkeypatch.setitem`); `register` refuses that."""
        self._entries[name] = entry

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    # ------------------------------------------------------------ installed packages
    def _look_at_plugins(self) -> None:
        """Add what installed packages register in this registry's group, once. A name the grader has
        already is refused, a plugin that does not load is left out: each with a warning, and the grader
        goes on without it (a broken package must not stop every `grader check`)."""
        if self._looked:
            return
        with _LOOKING:
            if self._looked or self._looking:
                return
            self._looking = True
            try:
                self._add_plugins()
            finally:
                self._looked, self._looking = True, False

    def _add_plugins(self) -> None:
        from importlib.metadata import entry_points  # here only: it reads every installed distribution

        points = sorted(entry_points(group=self.group or ""), key=lambda point: (point.name, point.value))
        added: dict[str, str] = {}  # name -> the plugin that took it
        for point in points:
            label = _plugin_label(self.group or "", point)
            if not point.name or set(point.name) - NAME_CHARACTERS or len(point.name) > MAX_NAME:
                warn(f"{label} is left out: its name must be letters, digits, '_', '-' and '.', at most "
                     f"{MAX_NAME} of them")
            elif point.name in added:
                warn(f"{label} is refused: {added[point.name]} has the name already")
            elif point.name in self._entries:
                warn(f"{label} is refused: grader has its own {self.what} '{point.name}'; the package must "
                     f"give its entry point another name")
            else:
                try:
                    loaded = point.load()
                    entry = self._adopt(loaded) if self._adopt else loaded
                except (Exception, SystemExit) as error:  # noqa: BLE001 - what a package does on import is its own
                    warn(f"{label} is left out: it cannot be loaded: {type(error).__name__}: {error}")
                    continue
                self._entries[point.name] = entry  # type: ignore[assignment]
                added[point.name] = label


class Names(Sequence[str]):
    """A registry's names (some of them), read each time they are asked: a list built once, an argparse
    `choices` or a module's constant, shows what is registered when it is read, the plugins of installed
    packages included, and costs nothing until then. `in` looks up one name: a built-in is found without
    looking at installed packages."""

    def __init__(self, listed: Callable[[], tuple[str, ...]], has: Callable[[str], bool]) -> None:
        self._listed, self._has = listed, has

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._has(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._listed())

    def __len__(self) -> int:
        return len(self._listed())

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self._listed()[index]

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Iterable) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Names({', '.join(self)})"


def warn(message: str) -> None:
    """A plugin's problem, said on stderr where a command's messages go, in text a terminal shows as text."""
    print(f"grader: warning: {printable(message)}", file=sys.stderr)


def printable(text: str) -> str:
    """`text` with its control characters written as escapes: a package's name or error may hold any."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _plugin_label(group: str, point: object) -> str:
    dist = getattr(point, "dist", None)
    source = f" of package {dist.name} {dist.version}" if dist is not None else ""
    return f"plugin {getattr(point, 'name', '')!r} ({group} = {getattr(point, 'value', '')}){source}"


def _described(entry: object) -> str:
    if isinstance(entry, str):
        return entry
    module = getattr(entry, "__module__", None) or type(entry).__module__
    name = getattr(entry, "__qualname__", None) or type(entry).__qualname__
    return f"{module}:{name}"
