"""Part of the sandbox's harness (see harness.py; sent to the sandbox as one text with it, last): what the
harness does between tests, so that nothing a test left behind reaches the next. Uses the names harness.py
defines; imports nothing from grader."""

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
