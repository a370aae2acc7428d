"""Part of the sandbox's harness (see harness.py; sent to the sandbox as one text with it, after
harness_values.py): loading the submission once, the globals its tests run in, the test-side code it must
leave alone, and the names a spec forbids. Uses the names harness.py defines; imports nothing from grader."""


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
            try:
                exec(compile(setup["test_setup"], "<test_setup>", "exec", dont_inherit=True), scope)
            except BaseException as error:  # noqa: BLE001 - the spec's code failed: no student's fault
                raise SetupFailed(setup_failure(error, setup.get("test_module") or "submission")) from None
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
        module = setup.get("test_module")  # imported by name at the top (taken out), or inside a helper
        if module and (setup.get("test_imports") or module in (setup.get("test_setup") or "")):
            bind_imports(setup["test_module"], setup.get("test_imports") or (), namespace, scope)
    return code, namespace


test_entry = ""  # the exercise's entry: the one name of the submission's that may shadow a builtin in tests
submission_module = None  # the submission as the module test-side code imports it by name (see test_import)


class SetupFailed(Exception):
    """The spec's test_setup raised: a grader error naming it, never the student's load failure."""


def setup_failure(error, module):
    text = "test_setup raised %s: %s" % (type(error).__name__, str(error)[:300])
    if type(error) is NameError:
        text += (" (test_setup runs before the submission loads: call its functions inside helpers, or import"
                 " them as a test file does: from %s import %s)" % (module, getattr(error, "name", None) or "..."))
    return text


def bind_imports(module_name, bindings, namespace, scope):
    """test_setup's `from grains import square` (taken out of it by the grader), bound now the submission has
    loaded: a name the file lacks fails the load, as the test file's ImportError fails every test. The
    module test-side code imports by that name reads the submission's globals as they are when read."""
    global submission_module, test_names
    import types

    class Submission(types.ModuleType):
        def __getattr__(self, name):
            try:
                return namespace[name]
            except KeyError:
                raise AttributeError("module %r has no attribute %r" % (module_name, name)) from None

    submission_module = Submission(module_name)
    bound = {}
    for local, name in bindings:
        if name == "":
            bound[local] = submission_module
        elif name == "*":
            bound.update({k: v for k, v in namespace.items() if not k.startswith("_")})
        elif name in namespace:
            bound[local] = namespace[name]
        else:
            raise ImportError("cannot import name %r from %r: %s" % (name, module_name, missing(name, namespace)))
    test_names = dict(test_names, **bound)
    if scope is not None:
        scope.update(bound)


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
