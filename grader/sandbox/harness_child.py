"""Part of the sandbox's harness (see harness.py; sent to the sandbox as one text with it, after it): what the
child forked for one test does. Uses the names harness.py defines; imports nothing from grader."""

def run_test(request, code, namespace):
    """In the test child: run one test; return a dict of plain data (raised errors are data too)."""
    if request["call"] is None:
        return run_script(request, code)
    try:
        if request.get("steps") is not None:
            return {"steps": run_steps(request, namespace)}
        scope = request["scope"]
        value = eval(compile(request["call"], "<test>", "eval"), test_globals(namespace), *((scope,) if scope else ()))
        return {"done": True} if request["compare"] == "output" else {"value": value}
    except SystemExit as stop:
        return {"exit_code": exit_status(stop)}
    except BaseException as error:  # noqa: BLE001 - every failure of the submission is data
        return called_wrongly(describe(error), error, request["call"], namespace)


def called_wrongly(reply, error, call, namespace):
    """A TypeError raised where the test calls the entry (no line of the file ran): the message names how
    the test calls it and the parameters the file's definition takes."""
    function = namespace.get(test_entry) if test_entry else None
    if type(error) is not TypeError or function is None or test_entry + "(" not in call:
        return reply
    import traceback

    if any(frame.filename == SOURCE_NAME for frame in traceback.extract_tb(error.__traceback__)):
        return reply
    try:
        import inspect

        parameters = str.__str__(str(inspect.signature(function)))
    except BaseException:  # noqa: BLE001 - no signature to show (a builtin, a forged __signature__)
        return reply
    hint = "; the test calls %s, and the file defines %s%s" % (call[:200], test_entry, parameters[:200])
    reply["message"] = reply["message"] + hint
    reply["traceback"] = reply["traceback"] + hint
    return reply


def given_scope(request):
    """The names a test's call sees: the spec's test_setup names, its `given` values, and the big ones that
    came as raw bytes (a list of numbers, a numpy array), made here in the child: a list built before the
    fork would cost the child a copy of every page it touches (reference counts), more than building it."""
    scope = dict(test_names, **dict(request.get("given") or ()))
    attachments = request.get("attachments") or ()
    for raw in request.get("given_raw") or ():
        name, form, code, shape, index = raw[:5]
        data = attachments[index]
        if form == "list":  # read in place: memoryview builds the list straight from the buffer
            if sys.byteorder == "little":
                value = memoryview(data).cast(code).tolist()
            else:
                import array

                numbers = array.array(code, data)
                numbers.byteswap()
                value = numbers.tolist()
        else:  # a numpy array over the request's own buffer (writable: the child's copy of its pages)
            numpy = sys.modules.get("numpy")
            if numpy is None:
                raise ImportError("a numpy array is given but the course's environment has no numpy")
            value = numpy.frombuffer(data, dtype=code).reshape(shape)
        if len(raw) > 5:  # a column of a given dict, which came with None in its place
            scope[name][raw[5]] = value
        else:
            scope[name] = value
    for name, source, function, args in request.get("given_made") or ():
        # `inside: true`: the course's generator run here, with the real builtins (the instructor's code,
        # not the submission's), from its source and args: the same input the reference's sandbox makes.
        generators = {"__name__": "generators", "__file__": "generators.py", "__builtins__": TEST_BUILTINS}
        exec(compile(source, "generators.py", "exec", dont_inherit=True), generators)
        scope[name] = generators[function](**args)
    return scope


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


def read_output(name, cap=1 << 20):
    """A file the program wrote, as text (None: it wrote none); only its first `cap` bytes."""
    try:
        with open(name, "rb") as file:
            return file.read(cap).decode("utf-8", "backslashreplace")
    except OSError:
        return None


def run_steps(request, namespace):
    """Every step in turn, in a scope of its own with the `given` names (as a call's): a statement's outcome
    is that it ran, an expression's its value, an exception is data; the grader decides which step failed."""
    scope = request["scope"]
    outcomes = []
    unread = []  # (index, value) of bare calls: read once every step has run, so reading changes no step
    try:
        run_each_step(request, namespace, scope, outcomes, unread)
    finally:
        for index, value in unread:
            try:
                outcomes[index] = {"value": Encoded(literal(value))}
            except BaseException as error:  # noqa: BLE001 - a value that cannot be read is no step's failure
                outcomes[index] = {"done": True, "unread": "%s: %s" % (type(error).__name__, str(error)[:200])}
    return outcomes


def run_each_step(request, namespace, scope, outcomes, unread):
    for step in request["steps"]:
        text, expression, equals = step[0], step[1], step[2] if len(step) > 2 else None
        bare = len(step) > 3 and step[3]  # a bare call: unittest never reads its value
        names = test_globals(namespace)  # read again each step: the submission's globals as they are now
        try:
            if equals is not None:  # an object judged by its own ==, as unittest's assertEqual does
                left = eval(compile(text, "<test>", "eval"), names, scope)
                right = eval(compile(equals, "<test>", "eval"), names, scope)
                same = left == right
                outcomes.append({"equal": bool(same) is True, "left": str.__str__(repr(left))[:2000],
                                 "right": str.__str__(repr(right))[:2000]})
            elif expression:
                value = eval(compile(text, "<test>", "eval"), names, scope)
                if bare:  # unittest never reads it: read after the last step, where it changes nothing
                    unread.append((len(outcomes), value))
                    outcomes.append({"done": True})
                else:  # written now (a generator is read once): a value that cannot be is this step's error
                    outcomes.append({"value": Encoded(literal(value))})
            else:
                exec(compile(text, "<test>", "exec"), names, scope)
                outcomes.append({"done": True})
        except SystemExit as stop:
            outcomes.append({"exit_code": exit_status(stop)})
            break
        except BaseException as error:  # noqa: BLE001 - every failure of the submission is data
            outcomes.append(called_wrongly(describe(error), error, text, namespace))


def lower(which, soft, hard):
    """Tighten a limit for this test; the sandbox's hard limit stays the ceiling (it cannot be raised)."""
    ceiling = resource.getrlimit(which)[1]
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    resource.setrlimit(which, (soft, hard))


def test_child(request, code, namespace, files):
    result_fd = files[3]
    try:
        request["scope"] = given_scope(request)  # our own work: a failure is the grader's, not the student's
        prepare_test_child(request, files)
    except BaseException as error:  # noqa: BLE001 - our own set-up failed: the grader's fault, say so
        _write(result_fd, frame({"sandbox_error": "test set-up failed: %r" % (error,)}).encode("ascii"))
        _exit(0)
    result = run_test(request, code, namespace)
    flush_streams()
    rebound = changed()
    if rebound:  # what the test checked with is not what the spec wrote: no answer of this test counts
        message = "the submission changed %s, which the test's own code uses" % rebound
        result = {"error_type": "TestCodeChanged", "builtin": False, "message": message,
                  "traceback": "TestCodeChanged: " + message, "error_bases": [], "error_classes": ["TestCodeChanged"]}
    try:
        parts = frame_parts(result)
    except BaseException as error:  # noqa: BLE001
        parts = frame_parts(describe(error))
    write_parts(result_fd, parts)
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
