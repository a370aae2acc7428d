"""Runs inside the sandbox (python -I -S -B, started by process.BOOTSTRAP, which runs this file's code sent
compiled on fd 3); imports nothing from grader.

It loads the submission once, then forks one child per test, so every test starts from the state right
after loading and nothing one test does leaks into the next. Requests arrive on fd 3 as marshal data
(written by the grader, so trusted); replies leave on fd 4 as length-prefixed JSON text that the grader
reads with json.loads: it never runs anything the sandbox sends, and a hostile reply costs it at most a
bounded parse (Python literals cost ast.literal_eval minutes and gigabytes on a 12 MB frame). Values keep
their types through one-key tags: {"$t": [...]} tuple, {"$s": [...]} set, {"$d": [[k, v], ...]} dict,
{"$b": "latin-1 text"} bytes. Test children close both channels before any student code runs.
The grader trusts none of this process: the submission may have rewritten it while it loaded.
"""

import builtins
import marshal
import os
import resource
import _signal as signal  # the C module: `signal` imports enum and costs milliseconds at start-up
import sys
from _json import encode_basestring_ascii as _json_str

REQUESTS, REPLIES = 3, 4
RESULT_CAP = 2 << 20  # bytes of a test's result (its returned value); more is "unreadable"
SOURCE_NAME = "submission.py"
source_text = ""  # the submission, for the lines of its tracebacks
submission_builtins = builtins  # what the submission runs with (see forbidding)
shown_name = SOURCE_NAME  # what tracebacks call the file: the setup's "name", the student's own
_repr_int, _repr_float = int.__repr__, float.__repr__
# Bound now, before the submission runs: a submission that monkeypatches os or marshal while it loads
# changes its own tests' behaviour, not the loop that serves them.
_read, _write, _fork, _wait4, _exit = os.read, os.write, os.fork, os.wait4, os._exit
_loads, _kill, _killpg, _waitpid = marshal.loads, os.kill, os.killpg, os.waitpid
# The builtin exception classes, by identity, taken before any submission code could replace them.
_BUILTIN_ERRORS = {id(value): value for value in vars(builtins).values()
                   if isinstance(value, type) and issubclass(value, BaseException)}


def read_exact(size):
    data = b""
    while len(data) < size:
        chunk = _read(REQUESTS, size - len(data))
        if not chunk:
            _exit(0)  # the grader went away
        data += chunk
    return data


def receive():
    return _loads(read_exact(int.from_bytes(read_exact(4), "big")))


def send(message):
    data = frame(message).encode("ascii")
    _write(REPLIES, len(data).to_bytes(4, "big") + data)


def frame(message):
    """A reply of ours (str keys; str, int, float, bool, None or tagged values) as a JSON object."""
    return "{" + ", ".join(_json_str(k) + ": " + literal(v) for k, v in message.items()) + "}"


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
        return "[" + ", ".join(literal(item, depth + 1) for item in value) + "]"
    if kind is tuple:
        return '{"$t": [' + ", ".join(literal(item, depth + 1) for item in value) + "]}"
    if kind is set or kind is frozenset:
        return '{"$s": [' + ", ".join(sorted(literal(item, depth + 1) for item in value)) + "]}"
    if kind is dict:
        pairs = ("[" + literal(k, depth + 1) + ", " + literal(v, depth + 1) + "]" for k, v in value.items())
        return '{"$d": [' + ", ".join(pairs) + "]}"
    # Not plain data (a map, a generator, an instance): only its type's name goes back, and the grader
    # judges it a wrong answer that names the type.
    return '{"$o": ' + _json_str(str.__str__(kind.__name__)) + "}"


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
            "message": str(error)[:500], "traceback": "\n".join(rows), "error_bases": builtin_bases(type(error))}


_issubclass = issubclass


def builtin_bases(cls):
    """The built-in exception classes `cls` is or subclasses, by name. issubclass asks the built-in class's
    own metaclass (type), so a student metaclass cannot claim a base its class lacks."""
    return [base.__name__ for base in _BUILTIN_ERRORS.values() if _issubclass(cls, base)]


def load(setup):
    """Compile (and for a function exercise, run) the submission once, in this process."""
    global source_text, submission_builtins, shown_name
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
        exec(compile(setup["prelude"], "<prelude>", "exec"), namespace)
        exec(code, namespace)
        entry = setup["entry"]
        if entry and entry not in namespace:
            raise LookupError("the file defines no " + entry)
    return code, namespace


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


def run_test(request, code, namespace):
    """In the test child: run one test; return a dict of plain data (raised errors are data too)."""
    if request["call"] is None:
        return run_script(request, code)
    try:
        if request.get("steps") is not None:
            return {"steps": run_steps(request, namespace)}
        given = request.get("given")
        value = eval(compile(request["call"], "<test>", "eval"), namespace, *((dict(given),) if given else ()))
        return {"done": True} if request["compare"] == "output" else {"value": value}
    except SystemExit as stop:
        return {"exit_code": exit_status(stop)}
    except BaseException as error:  # noqa: BLE001 - every failure of the submission is data
        return describe(error)


def exit_status(stop):
    status = stop.code
    if type(status) is int or status is None:
        return status or 0
    try:
        sys.stderr.write(str(status) + "\n")  # as Python does for sys.exit("message")
    except BaseException:  # noqa: BLE001 - a replaced stderr is the student's business
        pass
    return 1


def run_script(request, code):
    """A program test: its files written, run as __main__ with its arguments, its output files read back."""
    sys.argv = [SOURCE_NAME, *request.get("args", ())]
    for name, text in request.get("files", ()):
        with open(name, "w", encoding="utf-8") as file:
            file.write(text)
    try:
        exec(code, {"__name__": "__main__", "__builtins__": submission_builtins, "__file__": SOURCE_NAME})
        result = {"done": True}
    except SystemExit as stop:
        result = {"exit_code": exit_status(stop)}
    except BaseException as error:  # noqa: BLE001 - every failure of the submission is data
        result = describe(error)
    outputs = request.get("output_files")
    if outputs:
        result["files"] = {name: read_output(name) for name in outputs}
    return result


def read_output(name, cap=RESULT_CAP // 2):
    """A file the program wrote, as text (None: it wrote none); only its first `cap` bytes."""
    try:
        with open(name, "rb") as file:
            return file.read(cap).decode("utf-8", "backslashreplace")
    except OSError:
        return None


def run_steps(request, namespace):
    """Every step in turn, in a scope of its own with the `given` names (as a call's): a statement's outcome
    is that it ran, an expression's its value, an exception is data; the grader decides which step failed."""
    scope = dict(request.get("given") or ())
    outcomes = []
    for text, expression in request["steps"]:
        try:
            if expression:
                value = eval(compile(text, "<test>", "eval"), namespace, scope)
                literal(value)  # not plain data: this step's error, not the whole reply's
                outcomes.append({"value": value})
            else:
                exec(compile(text, "<test>", "exec"), namespace, scope)
                outcomes.append({"done": True})
        except SystemExit as stop:
            outcomes.append({"exit_code": exit_status(stop)})
            break
        except BaseException as error:  # noqa: BLE001 - every failure of the submission is data
            outcomes.append(describe(error))
    return outcomes


def lower(which, soft, hard):
    """Tighten a limit for this test; the sandbox's hard limit stays the ceiling (it cannot be raised)."""
    ceiling = resource.getrlimit(which)[1]
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    resource.setrlimit(which, (soft, hard))


def test_child(request, code, namespace, files):
    result_fd = files[3]
    try:
        prepare_test_child(request, files)
    except BaseException as error:  # noqa: BLE001 - our own set-up failed: the grader's fault, say so
        _write(result_fd, frame({"sandbox_error": "test set-up failed: %r" % (error,)}).encode("ascii"))
        _exit(0)
    result = run_test(request, code, namespace)
    flush_streams()
    try:
        text = frame(result)
    except BaseException as error:  # noqa: BLE001
        text = frame(describe(error))
    _write(result_fd, text.encode("ascii"))
    _exit(0)


def prepare_test_child(request, files):
    stdin_fd, stdout_fd, stderr_fd, _ = files
    os.setpgid(0, 0)
    # The run may go 20 % past its limit, so the grader can tell a borderline run (re-run it) from a slow
    # one. SIGPROF stops it precisely at that CPU time; RLIMIT_CPU is the backstop if it ignores SIGPROF.
    stop_at = request["cpu"] * request["margin"]
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_PROF, stop_at)
    cpu = int(stop_at) + 1
    lower(resource.RLIMIT_CPU, cpu, cpu + 1)
    lower(resource.RLIMIT_AS, request["memory"], request["memory"])
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    os.dup2(stdin_fd, 0)
    os.dup2(stdout_fd, 1)
    os.dup2(stderr_fd, 2)
    for fd in (REQUESTS, REPLIES, stdin_fd, stdout_fd, stderr_fd):
        os.close(fd)
    os.chdir(request["workdir"])


def read_back(fd, limit):
    os.lseek(fd, 0, os.SEEK_SET)
    data = os.read(fd, limit)
    size = os.fstat(fd).st_size
    os.close(fd)
    return data.decode("utf-8", "backslashreplace"), size


def memfd(name, content=b""):
    fd = os.memfd_create(name, 0)
    if content:
        os.write(fd, content)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def flush_streams():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a closed or replaced stream is the student's business
            pass


def sweep_and_reap(sweep):
    """End every process the submission left behind, then reap them all. We are a child subreaper (set
    before exec), so double-forked daemons come back to us. With `sweep` (a dedicated uid, or Landlock's
    signal scope) kill(-1) reaches exactly the sandbox's own processes; without it we kill the children
    /proc lists for us, round after round, as their own orphans come back to us."""
    if sweep:
        try:
            _kill(-1, signal.SIGKILL)
        except OSError:
            pass
        reap(block=True)
        return
    for _ in range(1000):
        children = own_children()
        if not children:
            break
        for pid in children:
            try:
                _kill(pid, signal.SIGKILL)
                _waitpid(pid, 0)  # only those: their own children, still alive, come back to us next round
            except OSError:
                pass
    reap(block=False)


def reap(block):
    while True:
        try:
            pid, _ = _waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


# Bound at start-up, as above: the clean-up does not use what the submission may patch in os.
_open, _close, _chdir, _fchdir, _chmod = os.open, os.close, os.chdir, os.fchdir, os.chmod
_scandir, _unlink, _rmdir, _mkdir = os.scandir, os.unlink, os.rmdir, os.mkdir


def clear(folder):
    """Remove everything in `folder`, whatever the test did to it: folders made 0o500 or 0o000 are made
    ours again first (the test ran as our uid, which owns all of it), a tree of any depth is walked with
    chdir (no path grows, no descriptor is held per level), symbolic links are removed, never followed.
    An error is raised, never ignored: the harness then dies, the test that left it is blamed, and the
    next test gets a fresh sandbox instead of this one's leftovers."""
    home = _open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        _chdir(folder)
        _chmod(".", 0o700)  # the folder itself: a test may have taken our rights to it
        below = []  # the folders walked down from `folder`, and below each one those still to visit
        pending = [_empty_but_folders()]
        while True:
            if pending[-1]:
                name = pending[-1].pop()
                _chmod(name, 0o700)
                _chdir(name)
                below.append(name)
                pending.append(_empty_but_folders())
            elif below:
                pending.pop()
                _chdir("..")
                _rmdir(below.pop())
            else:
                return
    finally:
        _fchdir(home)
        _close(home)


def remove_own_files(folder):
    """Remove what our uid owns directly in `folder` (a world-writable one, when nothing else keeps the
    submission out of it), folders included; what others own is left alone, links are never followed."""
    try:
        entries = list(_scandir(folder))
    except OSError:
        return
    uid, here = os.getuid(), os.stat(".")  # our working folder may be in there (TMPDIR=/tmp): it stays
    for entry in entries:
        found = entry.stat(follow_symlinks=False)
        if found.st_uid != uid or (found.st_ino, found.st_dev) == (here.st_ino, here.st_dev):
            continue
        if entry.is_dir(follow_symlinks=False):
            clear(entry.path)
            _rmdir(entry.path)
        else:
            _unlink(entry.path)


def _empty_but_folders():
    """Unlink everything in the current folder but its folders (not links to folders); return their names."""
    folders = []
    with _scandir(".") as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
            else:
                _unlink(entry.name)
    return folders


def own_children():
    pids = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/children" % task) as children:
                pids += [int(pid) for pid in children.read().split()]
    except OSError:
        return []
    return pids


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
        result, _ = read_back(files[3], RESULT_CAP)
        clear(".")  # the next test starts from an empty folder too, and files cannot pile up across tests
        for folder in setup.get("clear_also", ()):
            remove_own_files(folder)
        send({
            "seq": request["seq"],
            "status": status,
            "cpu": usage.ru_utime + usage.ru_stime,
            "maxrss_kb": usage.ru_maxrss,
            "stdout": stdout,
            "stdout_size": stdout_size,
            "stderr": stderr,
            "result": result,
        })


def main():
    setup = receive()
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


if __name__ == "__main__":
    main()
