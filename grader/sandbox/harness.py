"""Runs inside the sandbox (python -I -S -B, started by process.BOOTSTRAP, which runs this file's code sent
compiled on fd 3); imports nothing from grader.

It loads the submission once, then forks one child per test, so every test starts from the state right
after loading and nothing one test does leaks into the next. Requests arrive on fd 3 as marshal data
(written by the grader, so trusted), big given numbers as raw bytes after it; replies leave on fd 4 as
length-prefixed JSON text (a big test result after a NUL: its own JSON, then the raw numbers of its
arrays) that the grader reads with json.loads: it never runs anything the sandbox sends, and a hostile
reply costs it at most a bounded parse (Python literals cost ast.literal_eval minutes and gigabytes on a 12 MB frame). Values keep
their types through one-key tags: {"$t": [...]} tuple, {"$s": [...]} set, {"$d": [[k, v], ...]} dict,
{"$b": "latin-1 text"} bytes. Test children close both channels before any student code runs.
The grader trusts none of this process: the submission may have rewritten it while it loaded.
Its source is this file, then harness_channel.py (requests in, replies out), harness_child.py (what a
test's child does), harness_cleanup.py (what is left between tests) and harness_data.py (numpy and pandas
values), sent as one text (see wire.HARNESS): they share one global namespace.
"""

import builtins
import marshal
import os
import resource
import _signal as signal  # the C module: `signal` imports enum and costs milliseconds at start-up
import sys
from _json import encode_basestring_ascii as _json_str

REQUESTS, REPLIES = 3, 4
RESULT_CAP = 12 << 20  # bytes of a test's result (a million float64 raw, or in base64); more is "unreadable"
SOURCE_NAME = "submission.py"
source_text = ""  # the submission, for the lines of its tracebacks
submission_builtins = builtins  # what the submission runs with (see forbidding)
shown_name = SOURCE_NAME  # what tracebacks call the file: the setup's "name", the student's own
test_names = {}  # what the spec's `test_setup` defined: seen by the tests' calls and steps, not the submission
_repr_int, _repr_float = int.__repr__, float.__repr__
# Bound now, before the submission runs: a submission that monkeypatches os or marshal while it loads
# changes its own tests' behaviour, not the loop that serves them.
_read, _write, _fork, _wait4, _exit = os.read, os.write, os.fork, os.wait4, os._exit
_readv, _writev = os.readv, os.writev
_loads, _kill, _killpg, _waitpid = marshal.loads, os.kill, os.killpg, os.waitpid
# The builtin exception classes, by identity, taken before any submission code could replace them.
_BUILTIN_ERRORS = {id(value): value for value in vars(builtins).values()
                   if isinstance(value, type) and issubclass(value, BaseException)}
# The builtins as they were before any submission ran. The harness's own functions (defined below) look
# their builtins up here, not in the builtins module a submission may patch (builtins.bool, builtins.repr);
# the tests' expressions and test_setup's helpers see a copy whose __import__ hands back the modules loaded
# before the submission (see test_import), not whatever it put in sys.modules.
PRISTINE_BUILTINS = dict(vars(builtins))
__builtins__ = PRISTINE_BUILTINS
_MODULES = dict(sys.modules)  # refreshed when a submission is about to load (load)
_real_import = builtins.__import__


def test_import(name, globals=None, locals=None, fromlist=(), level=0):
    """`import` in test-side code: a module loaded before the submission ran is the one it gets, whatever
    the submission did to sys.modules; any other module imports as usual."""
    if level == 0:
        module = _MODULES.get(name if fromlist else name.partition(".")[0])
        if module is not None and (fromlist or name in _MODULES):
            return module
    return _real_import(name, globals, locals, fromlist, level)


TEST_BUILTINS = dict(PRISTINE_BUILTINS, __import__=test_import)


def literal(value, depth=0):
    """Plain data as tagged JSON text; only exact built-in types, so no student __repr__ runs."""
    if depth > 200:
        raise ValueError("the value is nested too deeply")
    kind = type(value)
    if value is None or kind is bool:
        return "true" if value is True else "false" if value is False else "null"
    if kind is int:
        return _repr_int(value)
    if kind is float:
        if value != value:
            return "NaN"  # judged in the grader: nan equals nothing unless a checker says so
        return "Infinity" if value == float("inf") else "-Infinity" if value == float("-inf") else _repr_float(value)
    if kind is str:
        return _json_str(value)
    if kind is bytes:
        return '{"$b": ' + _json_str(value.decode("latin-1")) + "}"
    if kind is list:
        if _blobs is not None and len(value) >= RAW_LIST:
            raw = raw_list(value)
            if raw is not None:
                return raw
        return "[" + ", ".join(literal(item, depth + 1) for item in value) + "]"
    if kind is tuple:
        return '{"$t": [' + ", ".join(literal(item, depth + 1) for item in value) + "]}"
    if kind is set or kind is frozenset:
        return '{"$s": [' + ", ".join(sorted(literal(item, depth + 1) for item in value)) + "]}"
    if kind is dict:
        pairs = ("[" + literal(k, depth + 1) + ", " + literal(v, depth + 1) + "]" for k, v in value.items())
        return '{"$d": [' + ", ".join(pairs) + "]}"
    if kind is Encoded:
        return value.text
    tagged = data_literal(value, kind, depth)  # numpy and pandas values (harness_data.py)
    if tagged is not None:
        return tagged
    tagged = other_literal(value, kind, depth)  # fractions, decimals, dataclasses, iterables (below)
    if tagged is not None:
        return tagged
    # Not plain data (a map, a generator, an instance): only its type's name goes back, and the grader
    # judges it a wrong answer that names the type.
    return '{"$o": ' + _json_str(str.__str__(kind.__name__)) + "}"


class Encoded:
    """A value already written as tagged text (a step's value, checked once: a generator is read once)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


ITERATED_CAP = 100_000  # items read from an iterator (a generator, a map, a range) before it counts as endless


def other_literal(value, kind, depth):
    """Values that are not plain data but can be compared as data, as equal and same_items compare them:
        {"$q": [numerator, denominator]}   a fractions.Fraction
        {"$D": text}                       a decimal.Decimal
        {"$c": [class name, [[field, value], ...]]}   a dataclass compared by its fields (eq=True)
        {"$i": [type name, "seq" | "set" | "map", items]}   any other iterable: its items (a mapping's
                                           [key, value] pairs), read here, at most ITERATED_CAP of them
    None for anything else (then only its type's name goes back)."""
    fractions, decimal = sys.modules.get("fractions"), sys.modules.get("decimal")
    if fractions is not None and kind is getattr(fractions, "Fraction", None):
        top, bottom = value.numerator, value.denominator
        if type(top) is int and type(bottom) is int:
            return '{"$q": [' + _repr_int(top) + ", " + _repr_int(bottom) + "]}"
        return None
    if decimal is not None and kind is getattr(decimal, "Decimal", None):
        return '{"$D": ' + _json_str(str.__str__(kind.__str__(value))) + "}"
    name = str.__str__(_type_name(kind))
    fields = getattr(kind, "__dataclass_fields__", None)
    params = getattr(kind, "__dataclass_params__", None)
    if type(fields) is dict and getattr(params, "eq", False) is True:
        pairs = []
        for field_name, field in fields.items():
            if type(field_name) is str and getattr(field, "compare", False) is True and \
                    str(getattr(field, "_field_type", "")) == "_FIELD":
                pairs.append("[" + _json_str(field_name) + ", " + literal(getattr(value, field_name), depth + 1) + "]")
        return '{"$c": [' + _json_str(name) + ", [" + ", ".join(pairs) + "]]}"
    abc = sys.modules.get("_collections_abc")
    if abc is None or getattr(kind, "__iter__", None) is None:
        return None
    if isinstance(value, abc.Mapping):
        form, items = "map", [[key, value[key]] for key in limited(value)]
    else:
        form, items = "set" if isinstance(value, abc.Set) else "seq", limited(value)
    if items is None:
        return '{"$o": ' + _json_str(name + " (more than %d items)" % ITERATED_CAP) + "}"
    return '{"$i": [' + _json_str(name) + ', "' + form + '", ' + literal(items, depth + 1) + "]}"


def limited(iterable):
    """The iterable's items as a list, or None past ITERATED_CAP of them (an endless generator)."""
    items = []
    for item in iterable:
        if len(items) == ITERATED_CAP:
            return None
        items.append(item)
    return items


RAW_LIST = 1024  # items of a list past which a list of only floats (or only ints) travels as raw bytes


def raw_list(items):
    """{"$lf": [offset, count]} (float64) or {"$li": ...} (int64) for a list of exact floats or ints only,
    {"$ln": [dtype, offset, count]} for one of numpy numbers of one type (what `list(array)` gives); None for
    any other list (then written item by item): 20 ms a million floats, not a second of repr."""
    kinds = set(map(type, items))
    if len(kinds) != 1:
        return None
    if not (float in kinds or int in kinds):
        return numpy_scalars(items, kinds.pop())
    import array

    code, tag = ("d", "$lf") if float in kinds else ("q", "$li")
    try:
        packed = array.array(code, items)
    except OverflowError:  # an int past 64 bits
        return None
    if sys.byteorder != "little":
        packed.byteswap()
    offset = attach(packed, len(items) * packed.itemsize)
    return '{"' + tag + '": [' + _repr_int(offset) + ", " + _repr_int(len(items)) + "]}"


def numpy_scalars(items, kind):
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(kind, type) or not issubclass(kind, numpy.generic) \
            or kind.__module__ != "numpy":
        return None
    dtype = numpy.dtype(kind)
    if dtype.kind not in "biuf":
        return None
    packed = numpy.array(items, dtype=dtype.newbyteorder("<"))
    offset = attach(packed, packed.nbytes)
    return ('{"$ln": [' + _json_str(packed.dtype.str) + ", " + _repr_int(offset) + ", " + _repr_int(len(items))
            + "]}")


def describe(error, limit=40):
    """The exception with the submission's own frames only, as a student wants to read it."""
    import linecache
    import traceback

    # Only now: linecache imports tokenize and re, ~8 ms that a submission without an error never pays.
    linecache.cache[SOURCE_NAME] = (len(source_text), None, source_text.splitlines(True), SOURCE_NAME)

    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == SOURCE_NAME]
    lines = traceback.StackSummary.from_list(frames).format() if frames else []
    text = "".join(lines) + "".join(traceback.format_exception_only(type(error), error))
    if shown_name != SOURCE_NAME:  # the student's own file name: the one they have open
        text = text.replace('File "%s"' % SOURCE_NAME, 'File "%s"' % shown_name)
    rows = text.splitlines()
    if len(rows) > limit:
        rows = rows[: limit // 2] + ["    ... (%d lines cut)" % (len(rows) - limit)] + rows[-limit // 2 :]
    return {"error_type": type(error).__name__, "builtin": id(type(error)) in _BUILTIN_ERRORS,
            "message": str(error)[:500], "traceback": "\n".join(rows), "error_bases": builtin_bases(type(error)),
            "error_classes": class_names(type(error))}


_issubclass = issubclass


def builtin_bases(cls):
    """The built-in exception classes `cls` is or subclasses, by name. issubclass asks the built-in class's
    own metaclass (type), so a student metaclass cannot claim a base its class lacks."""
    return [base.__name__ for base in _BUILTIN_ERRORS.values() if _issubclass(cls, base)]


_type_mro = type.__dict__["__mro__"].__get__
_type_name = type.__dict__["__name__"].__get__


def class_names(cls):
    """The names of `cls` and every class it derives from, read through type's own descriptors (a student
    metaclass cannot add a name its class lacks): how a spec names a class the submission defines."""
    return [str.__str__(_type_name(base)) for base in _type_mro(cls)][:50]


def load(setup):
    """Compile (and for a function exercise, run) the submission once, in this process."""
    global source_text, submission_builtins, shown_name, test_names
    source = source_text = setup["source"]
    shown_name = setup.get("name") or SOURCE_NAME
    code = compile(source, SOURCE_NAME, "exec", dont_inherit=True)
    submission_builtins = forbidding(setup.get("forbid") or [])
    namespace = {"__name__": "submission", "__builtins__": submission_builtins, "__file__": SOURCE_NAME}
    modules = {name: (path, text, package) for name, path, text, package in setup.get("modules", ())}
    if modules:  # the hand-in's other files, importable by name from the setup: the child reads no disk
        spec_type = type(builtins.__spec__)  # importlib's ModuleSpec, without importing importlib

        class HandinModules:
            @staticmethod
            def find_spec(name, path=None, target=None):
                if name not in modules:
                    return None
                origin, _, package = modules[name]
                spec = spec_type(name, HandinModules, origin=origin, is_package=package)
                if package:
                    spec.submodule_search_locations = []
                return spec

            @staticmethod
            def create_module(spec):
                return None

            @staticmethod
            def exec_module(module):
                origin, text, _ = modules[module.__name__]
                module.__file__ = origin
                module.__builtins__ = submission_builtins  # the forbidden names are absent here too
                exec(compile(text, origin, "exec", dont_inherit=True), module.__dict__)

        sys.meta_path.insert(0, HandinModules)
    if setup["mode"] == "module":  # load once; each test calls into it (a script runs whole per test)
        global test_entry
        test_entry = setup["entry"]
        _MODULES.update(sys.modules)  # nothing of the submission has run yet
        scope = None
        if setup.get("test_setup"):
            # The test file's imports and helpers, bound before the submission runs: what it does to
            # collections, operator, sys.modules... while loading cannot change what they are.
            scope = {"__name__": "test_setup", "__builtins__": TEST_BUILTINS}
            imported_by(setup["test_setup"])
            exec(compile(setup["test_setup"], "<test_setup>", "exec", dont_inherit=True), scope)
            _MODULES.update(sys.modules)
            test_names = {k: v for k, v in scope.items() if k not in ("__builtins__", "__name__")}
            watch(test_names)
        exec(compile(setup["prelude"], "<prelude>", "exec"), namespace)
        exec(code, namespace)
        entry = setup["entry"]
        if entry and entry not in namespace:
            raise LookupError(missing(entry, namespace))
        if scope is not None:  # the helpers call the submission's functions by name, as they would beside them
            for name, value in test_globals(namespace).items():
                scope.setdefault(name, value)
    return code, namespace


test_entry = ""  # the exercise's entry: the one name of the submission's that may shadow a builtin in tests


def test_globals(namespace):
    """The globals a test's expression and steps run in: the submission's names (a copy, read when the test
    runs) but none that would shadow a builtin the test uses, and the builtins as they were before it ran."""
    names = {k: v for k, v in namespace.items() if k not in PRISTINE_BUILTINS or k == test_entry}
    names["__builtins__"] = TEST_BUILTINS
    return names


def missing(entry, namespace):
    """Why the file does not load: it defines no `entry`, and the definition it has that is closest."""
    text = "the file defines no " + entry
    defined = [name for name, value in namespace.items()
               if not name.startswith("__") and callable(value) and name not in PRISTINE_BUILTINS]

    def plain(name):
        return name.replace("_", "").lower()

    same = [name for name in defined if plain(name) == plain(entry)]
    if not same:
        import difflib

        same = difflib.get_close_matches(entry, defined, n=1, cutoff=0.6)
    return text + ("; did you mean " + same[0] + "?" if same else "")


# Test-side code a submission must leave alone: (mapping, key, value, what it is) for each function or class
# of a module test_setup bound, each attribute of a class of its, each builtin; read again after each test.
_watched = []


def watch(names):
    import types

    seen = set()

    def members(label, kind):
        flags = type.__dict__["__flags__"].__get__(kind)
        if id(kind) in seen or not flags & (1 << 9) or flags & (1 << 8):  # a static or immutable type: fixed
            return
        seen.add(id(kind))
        proxy = type.__dict__["__dict__"].__get__(kind)
        _watched.extend((proxy, key, item, label + "." + key) for key, item in proxy.items())
        _classes.append((proxy, set(proxy), label))  # a method added over an inherited one changes it too

    for name, value in names.items():
        if isinstance(value, type):
            members(name, value)
        elif type(value) is types.ModuleType:
            attributes = vars(value)
            for key, item in list(attributes.items()):
                if isinstance(item, type):
                    members(name + "." + key, item)
                if callable(item):
                    _watched.append((attributes, key, item, name + "." + key))
    _watched.extend((vars(builtins), key, item, "builtins." + key) for key, item in PRISTINE_BUILTINS.items())


_ABSENT = object()
_classes = []  # (a watched class's attributes, their names when watched, the class's name)


def changed():
    """The first test-side name the submission rebound (a module's function, a class's method, a builtin),
    or ""; read by identity, so nothing of the submission's runs here."""
    for mapping, key, value, label in _watched:
        if mapping.get(key, _ABSENT) is not value:
            return label
    for mapping, names, label in _classes:
        if len(mapping) != len(names):
            return label + "." + next((key for key in mapping if key not in names), "?")
    return ""


def imported_by(text):
    """The modules a test_setup imports, at its top or inside its helpers: loaded before the submission
    runs, so that the helpers' imports find them as they were (see test_import)."""
    names = []
    for line in text.splitlines():
        words = line.replace(",", " ").split()
        if len(words) > 1 and words[0] == "from" and not words[1].startswith("."):
            names.append(words[1])
        elif words and words[0] == "import":
            names += [word for word in words[1:] if word != "as" and word.isidentifier() or "." in word][:8]
    for name in names:
        try:
            _real_import(name)
        except BaseException:  # noqa: BLE001 - the helper's own import fails later, as it would
            pass




def forbidding(rules):
    """The builtins the submission runs with, denying the spec's forbidden names at run time too (the syntax
    tree misses getattr(itertools, "permu" + "tations")), as PrairieLearn's not_allowed does: a forbidden
    module does not import, a forbidden attribute is absent from the modules and builtins the submission
    sees, and the error says the rule's message. Only the submission's view changes (it gets copies of the
    modules): the harness and the standard library keep the real ones."""
    if not rules:
        return builtins
    import types

    why = {}
    for name, message in rules:
        why[name] = "uses " + name + ", which this exercise forbids" + (": " + message if message else "")
    attributes = {}  # module name ("" for any module) -> forbidden attribute -> why
    for name in why:
        module, _, attribute = name.rpartition(".")
        attributes.setdefault(module, {})[attribute] = why[name]
    real_import, copies = builtins.__import__, {}

    def seen(module):
        if not isinstance(module, types.ModuleType):
            return module
        denied = {**attributes.get("", {}), **attributes.get(module.__name__, {})}
        if module is not builtins and not any(attr in module.__dict__ for attr in denied):
            return module
        if id(module) not in copies:
            copy = types.ModuleType(module.__name__)
            copy.__dict__.update(module.__dict__)
            for attr in denied:
                copy.__dict__.pop(attr, None)

            def absent(attr, denied=denied, name=module.__name__):
                raise AttributeError(denied[attr] if attr in denied else
                                     "module %r has no attribute %r" % (name, attr))

            copy.__getattr__ = absent
            if module is builtins:
                copy.__import__ = guarded_import
            copies[id(module)] = (module, copy)
        return copies[id(module)][1]

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        caller = sys._getframe(1).f_globals
        owner = sys.modules.get(caller.get("__name__", ""))
        if owner is not None and getattr(owner, "__dict__", None) is caller:
            return real_import(name, globals, locals, fromlist, level)  # a real module's own import
        for forbidden in why:
            if level == 0 and (name == forbidden or name.startswith(forbidden + ".")):
                raise ImportError(why[forbidden], name=name)
        return seen(real_import(name, globals, locals, fromlist, level))

    view = dict(vars(builtins))
    for attr in {**attributes.get("", {}), **attributes.get("builtins", {})}:
        view.pop(attr, None)
    view["__import__"] = guarded_import
    seen(builtins)
    return view


def serve(setup, code, namespace):
    sweep = setup["sweep"]
    for number in range(1, 1 << 62):
        request = receive()
        workdir = "t%d" % number
        _mkdir(workdir, 0o700)
        request["workdir"] = os.path.abspath(workdir)
        files = (
            memfd("stdin", (request["stdin"] or "").encode()),
            memfd("stdout"),
            memfd("stderr"),
            memfd("result"),
        )
        if any(raw[1] == "array" for raw in request.get("given_raw") or ()) and "numpy" not in sys.modules:
            try:
                import numpy  # noqa: F401 - once, before the fork: the child builds the given arrays with it
            except ImportError:
                pass  # the child says so (test set-up failed)
        flush_streams()
        pid = _fork()
        if pid == 0:
            try:
                test_child(request, code, namespace, files)
            finally:
                _exit(70)
        _, status, usage = _wait4(pid, 0)
        try:
            _killpg(pid, signal.SIGKILL)  # helpers the test left in its process group
        except OSError:
            pass
        sweep_and_reap(sweep)  # before reading back: no leftover may still write to the files
        for fd in files[:1]:
            os.close(fd)
        stdout, stdout_size = read_back(files[1], request["output"] + 1)
        stderr, _ = read_back(files[2], min(request["output"], 16384))
        result, attachment = result_of(files[3])
        clear(".")  # the next test starts from an empty folder too, and files cannot pile up across tests
        for folder in setup.get("clear_also", ()):
            remove_own_files(folder)
        reply = {
            "seq": request["seq"],
            "status": status,
            "cpu": usage.ru_utime + usage.ru_stime,
            "maxrss_kb": usage.ru_maxrss,
            "stdout": stdout,
            "stdout_size": stdout_size,
            "stderr": stderr,
        }
        if attachment is None:
            reply["result"] = result
            send(reply)
        else:
            send(reply, attachment)
        os.close(files[3])


INLINE_RESULT = 1 << 16  # bytes: a result this small with no raw part goes inside the reply's text


def result_of(fd):
    """(text, None) for a small result of JSON text alone, sent inside the reply; else (None, (fd, size)):
    a big one, or one with raw numbers, goes after the reply's text as it is (see send), never read here."""
    size = min(os.fstat(fd).st_size, RESULT_CAP)
    if size <= INLINE_RESULT:
        data = os.pread(fd, size, 0)
        if b"\0" not in data:
            return data.decode("utf-8", "backslashreplace"), None
    return None, (fd, size)


def use_environment(setup):
    """The course's environment (numpy, pandas...): its site-packages importable, one BLAS thread, plots
    headless. No site module: its .pth files would run code of the packages' choosing before ours."""
    folder = setup.get("site_packages")
    if folder:
        sys.path.append(folder)
        os.environ.update(setup.get("environ") or {})
        os.environ["MPLCONFIGDIR"] = os.path.abspath(".matplotlib")  # in the working folder: emptied per test


def main():
    setup = receive()
    use_environment(setup)
    # Loading has a CPU limit of its own: SIGPROF stops it just past it (the grader, reading our CPU,
    # calls that a timeout); the sandbox's RLIMIT_CPU is the backstop if the submission disarms it.
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_PROF, setup.get("load_cpu", 0) * setup.get("margin", 1))
    try:
        code, namespace = load(setup)
    except BaseException as error:  # noqa: BLE001
        reply = describe(error)
        reply["loaded"] = False
        send(reply)
        return
    signal.setitimer(signal.ITIMER_PROF, 0)
    flush_streams()
    sweep_and_reap(setup["sweep"])  # a helper started while loading would otherwise hold our channels
    send({"loaded": True})
    serve(setup, code, namespace)

