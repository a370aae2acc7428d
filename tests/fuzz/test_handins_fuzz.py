"""Every reader of a hand-in against random and adversarial input: notebooks, zips, folders, names, and the
checkers' answers. Each reader is called directly (not through read_handin's net, which would hide a crash):
it returns a Handin, readable or refused with a reason, and raises nothing. A bounded number of examples
keeps the file well under a minute in CI; every crash ever found is kept below as a fixed @example."""

from __future__ import annotations

import io
import json
import os
import re
import stat
import tempfile
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grader.gradebook import file_names
from grader.batch.layouts import HandIn, settle_names
from grader.checkers import CHECKERS
from grader.course import Course
from grader.handins.archive import ZipForm
from grader.handins.base import Context, Handin
from grader.handins.folder import FolderForm
from grader.handins.notebook import from_bytes
from tests.conftest import EXERCISES
from tests.handins.hostile import NOTEBOOKS

# GRADER_FUZZ_EXAMPLES=2000 for a deeper local run; CI keeps the default, well under a minute in all.
FUZZ = settings(max_examples=int(os.environ.get("GRADER_FUZZ_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])
CONTEXT = Context(Course.at(EXERCISES).load("count-queens"))
CODE = "def count_queens(n):\n    return 1\n"


def assert_a_verdict(handin: Handin) -> None:
    assert isinstance(handin, Handin)
    if handin.refused:
        handin.refused.encode("utf-8")  # text any output takes
    else:
        assert isinstance(handin.source, str)
    for text in (*handin.notes, *(m.path for m in handin.modules)):
        text.encode("utf-8")
    handin.digest()


# ---------------------------------------------------------------- notebooks
HOSTILE_NUMBERS = st.sampled_from([3, 4, 5, 0, -1, "4", 4.0, None, True, 10**12, 2**63, [4], {"a": 4}])
json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                     st.text(max_size=20)),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                           max_leaves=20)
sources = st.one_of(st.text(max_size=60), st.lists(st.text(max_size=20), max_size=4), json_values,
                    st.just(CODE), st.just("%%bash\nls\n"), st.just("!ls\n%time x = 1\n"))
cells = st.fixed_dictionaries(
    {"cell_type": st.sampled_from(["code", "markdown", "raw", "heading", "weird", 3])},
    optional={"source": sources, "input": sources, "metadata": json_values, "outputs": json_values,
              "execution_count": HOSTILE_NUMBERS, "level": st.one_of(st.integers(), HOSTILE_NUMBERS),
              "id": st.text(max_size=10), "language": st.just("python")})
notebooks = st.fixed_dictionaries(
    {"nbformat": HOSTILE_NUMBERS},
    optional={"nbformat_minor": HOSTILE_NUMBERS, "metadata": json_values, "cells": st.lists(cells, max_size=4),
              "worksheets": st.lists(st.fixed_dictionaries({"cells": st.lists(cells, max_size=4)},
                                                           optional={"metadata": json_values}), max_size=2)})


@FUZZ
@given(notebooks)
@example({"nbformat": 4, "nbformat_minor": "5", "metadata": {}, "cells": []})
@example({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"metadata": {}, "cells": [
    {"cell_type": "heading", "level": 10**12, "source": "x", "metadata": {}}]}]})
@example({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": CODE,
                                                                         "metadata": {}, "outputs": [],
                                                                         "execution_count": None}]})
def test_a_notebook_of_any_shape_is_read_or_refused(notebook: dict) -> None:
    assert_a_verdict(from_bytes(json.dumps(notebook).encode(), "count-queens.ipynb", CONTEXT))


@FUZZ
@given(st.binary(max_size=300))
@example(NOTEBOOKS["deep"])
@example(NOTEBOOKS["heading-7e8"])
@example(NOTEBOOKS["values"])
@example(b'{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {}, "x": 1' + b"0" * 5000 + b"}")
@example(b'\xef\xbb\xbf{"nbformat": 4}')
def test_any_bytes_as_a_notebook_are_read_or_refused(data: bytes) -> None:
    assert_a_verdict(from_bytes(data, "count-queens.ipynb", CONTEXT))


@FUZZ
@given(st.lists(st.sampled_from(list(b'{}[]",:0a\\ ')), max_size=200).map(bytes))
def test_json_punctuation_as_a_notebook_is_read_or_refused(data: bytes) -> None:
    assert_a_verdict(from_bytes(b'{"nbformat": 4, "nbformat_minor": 5, "x": ' + data, "n.ipynb", CONTEXT))


# ---------------------------------------------------------------- zips
member_names = st.one_of(st.sampled_from(["count-queens.py", "helpers.py", "pkg/__init__.py", "pkg/m.py", "a/",
                                          "../up.py", "/abs.py", "C:/x.py", "..\\x.py", "main.py", "m.txt"]),
                         st.text(min_size=1, max_size=20).filter(lambda n: "\0" not in n))
MODES = [0, stat.S_IFREG | 0o644, stat.S_IFLNK | 0o777, stat.S_IFIFO | 0o644, stat.S_IFDIR | 0o755,
         stat.S_IFCHR | 0o644]
members = st.tuples(member_names, st.one_of(st.binary(max_size=40), st.just(CODE.encode())),
                    st.sampled_from(MODES), st.sampled_from([0, 0x1, 0x800]))


def zip_of(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # a member named twice is one of the cases
        for name, data, mode, flags in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.flag_bits |= flags & 0x800
            archive.writestr(info, data)
            if flags & 0x1:
                info.flag_bits |= 0x1  # marked encrypted in the central directory written at close
    return buffer.getvalue()


def read_zip(data: bytes) -> Handin:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "count-queens.zip"
        path.write_bytes(data)
        return ZipForm().read(path, CONTEXT)


@FUZZ
@given(st.lists(members, max_size=6))
@example([("count-queens.py", CODE.encode(), 0, 0)])
@example([("../up.py", b"", 0, 0), ("count-queens.py", CODE.encode(), 0, 0)])
def test_a_zip_of_any_members_is_read_or_refused(entries: list[tuple[str, bytes, int, int]]) -> None:
    assert_a_verdict(read_zip(zip_of(entries)))


@FUZZ
@given(st.lists(members, min_size=1, max_size=3), st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)),
                                                         min_size=1, max_size=8))
def test_a_damaged_zip_is_read_or_refused(entries: list[tuple[str, bytes, int, int]],
                                          damage: list[tuple[int, int]]) -> None:
    data = bytearray(zip_of(entries))
    for where, value in damage:
        data[where % len(data)] = value
    assert_a_verdict(read_zip(bytes(data)))


@FUZZ
@given(st.binary(max_size=200))
@example(b"PK\x05\x06" + b"\xff" * 18)
@example(b"PK\x03\x04 not really")
def test_any_bytes_as_a_zip_are_read_or_refused(data: bytes) -> None:
    assert_a_verdict(read_zip(data))


# ---------------------------------------------------------------- folders
raw_names = st.one_of(st.sampled_from([b"count-queens.py", b"helpers.py", b"jos\xe9.py", b"\xff", b"\x1b[31m.py",
                                       b"\xe2\x80\xaeyp.txt", b".hidden.py", b"__pycache__", b"pkg", b"main.py"]),
                      st.binary(min_size=1, max_size=12).filter(lambda n: b"/" not in n and b"\0" not in n
                                                                 and n not in (b".", b"..")))
entries = st.lists(st.tuples(st.sampled_from([b"", b"pkg/", b"deep/er/"]), raw_names,
                             st.sampled_from(["file", "code", "link-self", "link-up", "link-out", "link-dangling",
                                              "folder", "fifo"])), max_size=6)


def build(root: bytes, entries: list[tuple[bytes, bytes, str]]) -> None:
    for where, name, what in entries:
        folder = os.path.join(root, where)
        path = os.path.join(folder, name)
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:  # a file (or a link) of that name is there already: a tree cannot hold both
            continue
        if os.path.lexists(path):
            continue
        if what in ("file", "code"):
            with open(path, "wb") as file:
                file.write(CODE.encode() if what == "code" else b"\xff\xfe" + name)
        elif what == "folder":
            os.makedirs(path, exist_ok=True)
        elif what == "fifo":
            os.mkfifo(path)
        else:
            target = {"link-self": name, "link-up": b"..", "link-out": b"/etc/passwd", "link-dangling": b"nowhere"}
            os.symlink(target[what], path)


@FUZZ
@given(entries)
@example([(b"", b"count-queens.py", "code"), (b"", b"loop.py", "link-self")])
@example([(b"", b"jos\xe9.py", "code")])
@example([(b"pkg/", b"\xff.py", "code"), (b"", b"main.py", "code")])
@example([(b"", b"count-queens.py", "fifo")])
def test_a_folder_of_any_entries_is_read_or_refused(entries: list[tuple[bytes, bytes, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = os.path.join(os.fsencode(folder), b"count-queens")
        os.makedirs(root)
        build(root, entries)
        assert_a_verdict(FolderForm().read(Path(os.fsdecode(root)), CONTEXT))


# ---------------------------------------------------------------- names
names = st.one_of(st.text(max_size=12), st.binary(max_size=12).map(os.fsdecode),
                  st.sampled_from(["Ada", "ada", "ADA", "Ada (2)", "Jos\u00fb", "\u202eevil", "\x1b[2J", "", ".",
                                   "..", "a/b", "\ud800"]))
SAFE_FILE = re.compile(r"[A-Za-z0-9._-]+")


@FUZZ
@given(st.lists(st.tuples(names, st.sampled_from(["", "1", "2"])), max_size=8))
@example([("Ada", ""), ("Ada", "")])
@example([("Jos\udce9", ""), ("Jos\\xe9", "")])
@example([("\n\x08", "")])
def test_names_are_made_safe_and_unique_once(people: list[tuple[str, str]]) -> None:
    settled = settle_names([HandIn(name, ids={"id": tag} if tag else {}) for name, tag in people])
    students = [hand_in.student for hand_in in settled]
    assert len(set(students)) == len(students)
    for student in students:
        student.encode("utf-8")
        assert student and student.isprintable() or "\\" in student
        assert not any(ord(c) < 0x20 or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069 for c in student)
    files = file_names(students)
    assert len({name.lower() for name in files.values()}) == len(students)
    assert all(SAFE_FILE.fullmatch(name) and not name.startswith(".") for name in files.values())


# ---------------------------------------------------------------- checkers' answers
answers = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=10**300, max_value=10**1000),
              st.floats(), st.text(max_size=10), st.binary(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.one_of(st.integers(), st.text(max_size=5)), inner, max_size=3),
                            st.frozensets(st.integers(), max_size=3)),
    max_leaves=12)


@pytest.mark.parametrize("name", sorted(set(CHECKERS) - {"custom"}))
@FUZZ
@given(expected=answers, actual=answers)
@example(expected=2.5, actual=10**400)
@example(expected=10**400, actual=1.5)
@example(expected=float("inf"), actual=1.5)
@example(expected=[10**400], actual=[10**400 + 1])
def test_a_checker_takes_any_answer(name: str, expected: object, actual: object) -> None:
    result = CHECKERS[name](expected, actual)
    assert isinstance(result.passed, bool)
    result.feedback.encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------- a platform's metadata
submitters = st.lists(st.one_of(json_values, st.fixed_dictionaries({}, optional={
    ":name": st.one_of(names, json_values), ":email": json_values, ":sid": json_values})), max_size=3)
folder_names = st.one_of(st.sampled_from(["submission_1", "../up", "/etc", ".", "..", "a/b", "", "x\\y"]),
                         st.text(max_size=10), st.integers())


@FUZZ
@given(st.one_of(json_values, st.dictionaries(folder_names, st.one_of(
    json_values, st.fixed_dictionaries({":submitters": submitters})), max_size=4)))
@example({"../..": {":submitters": [{":name": "Eve"}]}, "/etc": {":submitters": [{":name": "Mallory"}]}})
@example({"submission_1": {":submitters": [{":name": "Ada"}, {":name": "Ada"}]}})
def test_gradescope_metadata_of_any_shape_is_read_or_refused_inside_the_export(metadata: object) -> None:
    import yaml

    from grader.batch.layouts import gradescope
    from grader.errors import UsageError

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "export"
        (root / "submission_1").mkdir(parents=True)
        (root / "submission_1" / "count-queens.py").write_text(CODE)
        (root / "submission_metadata.yml").write_text(yaml.safe_dump(metadata))
        try:
            people = settle_names(gradescope(root))
        except UsageError:
            return  # a broken export is the teacher's usage error, named by file
        for hand_in in people:
            assert hand_in.refused or (hand_in.boundary is not None and hand_in.boundary.parent == root)


dates = st.one_of(st.none(), st.text(max_size=5), st.integers(),
                  st.sampled_from(["2025-03-02T10:00:00.000000-07:00", "2025-03-02T10:00:00", "2025-03-02"]))


@FUZZ
@given(st.one_of(json_values, st.fixed_dictionaries({}, optional={
    "id": json_values, "created_at": dates, "users": st.one_of(json_values, st.lists(json_values, max_size=3)),
    "assignment": st.one_of(json_values, st.fixed_dictionaries({}, optional={"due_date": dates,
                                                                             "late_due_date": dates})),
})))
@example({"created_at": "2025-03-02T10:00:00", "assignment": {"due_date": "2025-03-01T23:00:00-07:00"}})
@example({"users": 5})
def test_gradescope_submission_metadata_of_any_shape_is_read(metadata: object) -> None:
    from grader.platforms.gradescope.run import read_metadata

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "submission_metadata.json"
        path.write_text(json.dumps(metadata))
        assert isinstance(read_metadata(path), dict)
