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
Its source is this file, then harness_values.py (values as tagged text), harness_load.py (the submission
loaded, the tests' globals, what it must leave alone), harness_channel.py (requests in, replies out),
harness_child.py (what a test's child does), harness_cleanup.py (what is left between tests) and
harness_data.py (numpy and pandas values), sent as one text (see wire.HARNESS): they share one global
namespace.
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
    if level == 0 and submission_module is not None and name == submission_module.__name__:
        return submission_module  # `from grains import square` inside a helper of test_setup's
    if level == 0:
        module = _MODULES.get(name if fromlist else name.partition(".")[0])
        if module is not None and (fromlist or name in _MODULES):
            return module
    return _real_import(name, globals, locals, fromlist, level)


TEST_BUILTINS = dict(PRISTINE_BUILTINS, __import__=test_import)


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
            "error_classes": class_names(type(error)), "first_arg": first_argument(error)}


def first_argument(error):
    """[args[0]] as data, as unittest's `cm.exception.args[0]` reads it ([] when it has no arguments): an
    exception, or an object of the submission's, goes as its type's name only; no iterable is iterated."""
    try:
        args = error.args
        if type(args) is not tuple or not args:
            return []
        return [Encoded(literal(args[0], iterate=False))]
    except BaseException:  # noqa: BLE001 - an args the submission broke has no first argument to read
        return []


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
    except SetupFailed as error:
        send({"loaded": False, "sandbox_error": str(error)})
        return
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

