"""Any exercise accepts a folder or a zip: the entry is the file named for the exercise, else the only .py
file, else main.py, and the other modules import by name. A zip is unpacked into memory, safely: members
outside the folder, links, devices, a bomb or too many members refuse it with the reason; so does a
folder's link out of itself."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

from tests.handins.conftest import Course, verdicts, write

USES_HELPER = "from helpers import helper\n\ndef add(a, b):\n    return helper(a, b)\n"
HELPER = "def helper(a, b):\n    return a + b\n"


def zipped(path: Path, members: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_a_folder_grades_its_entry_with_its_helpers_importable(course: Course, tmp_path: Path) -> None:
    folder = tmp_path / "ada"
    write(folder / "add.py", "from helpers import helper\nfrom tools.maths import twice\nimport tools\n\n"
                             "def add(a, b):\n    return helper(a, b) + twice(0) + tools.ZERO\n")
    write(folder / "helpers.py", HELPER)
    write(folder / "tools" / "__init__.py", "ZERO = 0\n")
    write(folder / "tools" / "maths.py", "def twice(x):\n    return 2 * x\n")
    write(folder / "notes.txt", "not Python: never read")
    report = course.check(folder)
    assert verdicts(report) == ["passed", "passed"]
    assert report["notes"] == ["the folder was graded from add.py, with helpers.py, tools/__init__.py, "
                               "tools/maths.py importable"]


def test_the_entry_is_the_only_py_file_else_main_py_else_the_folder_says_what_to_name(course: Course,
                                                                                      tmp_path: Path) -> None:
    only = write(tmp_path / "only" / "solution.py", "def add(a, b):\n    return a + b\n").parent
    assert verdicts(course.check(only)) == ["passed", "passed"]
    main = tmp_path / "main"
    write(main / "main.py", USES_HELPER)
    write(main / "helpers.py", HELPER)
    assert verdicts(course.check(main)) == ["passed", "passed"]
    neither = tmp_path / "neither"
    write(neither / "one.py", HELPER)
    write(neither / "two.py", HELPER)
    report = course.check(neither)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert report["tests"][0]["feedback"] == ("the folder has no entry file: name it add.py (or main.py); it "
                                              "holds one.py, two.py")


def test_an_error_in_a_helper_is_the_students_and_the_child_never_reads_the_graders_disk(course: Course,
                                                                                          tmp_path: Path) -> None:
    folder = tmp_path / "bob"
    write(folder / "add.py", USES_HELPER)
    write(folder / "helpers.py", "def helper(a, b):\n    return a + b + undefined\n")
    report = course.check(folder)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert report["tests"][0]["feedback"] == "NameError: name 'undefined' is not defined"
    (folder / "helpers.py").unlink()  # the module sent in the setup is the only way in
    report = course.check(folder)
    assert report["tests"][0]["feedback"] == "while loading the file: ModuleNotFoundError: No module named 'helpers'"


def test_a_folder_link_out_of_itself_is_refused(course: Course, tmp_path: Path) -> None:
    folder = tmp_path / "cy"
    write(folder / "add.py", USES_HELPER)
    secret = write(tmp_path / "elsewhere" / "helpers.py", HELPER)
    os.symlink(secret, folder / "helpers.py")
    report = course.check(folder)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert report["tests"][0]["feedback"] == ("helpers.py is a symbolic link to outside the folder; the hand-in "
                                              "is not read")


def test_a_good_zip_grades_like_the_folder_it_holds(course: Course, tmp_path: Path) -> None:
    handin = zipped(tmp_path / "add.zip", {"ada/add.py": USES_HELPER, "ada/helpers.py": HELPER,
                                           "__MACOSX/ada/._add.py": b"\x00\x05\x16\x07"})
    report = course.check(handin)
    assert verdicts(report) == ["passed", "passed"]
    assert report["notes"] == ["the zip was graded from add.py, with helpers.py importable"]


def test_a_zip_slip_member_refuses_the_zip(course: Course, tmp_path: Path) -> None:
    for name in ("../helpers.py", "/etc/helpers.py", "ok/../../helpers.py"):
        handin = zipped(tmp_path / "add.zip", {"add.py": USES_HELPER, name: HELPER})
        report = course.check(handin)
        assert verdicts(report) == ["runtime_error", "runtime_error"]
        assert report["tests"][0]["feedback"] == (f"the zip member {name!r} would unpack outside the folder; "
                                                  f"the zip is not unpacked")
    assert not (tmp_path.parent / "helpers.py").exists()


def test_a_zip_holding_a_link_or_a_device_is_refused(course: Course, tmp_path: Path) -> None:
    for mode, what in ((stat.S_IFLNK | 0o777, "is a symbolic link; links are not unpacked"),
                       (stat.S_IFCHR | 0o666, "is a device, a pipe or a socket")):
        handin = tmp_path / "add.zip"
        with zipfile.ZipFile(handin, "w") as archive:
            archive.writestr("add.py", USES_HELPER)
            member = zipfile.ZipInfo("helpers.py")
            member.external_attr = mode << 16
            archive.writestr(member, "/etc/passwd")
        report = course.check(handin)
        assert verdicts(report) == ["runtime_error", "runtime_error"]
        assert what in report["tests"][0]["feedback"]


def test_a_zip_bomb_gets_a_clear_verdict_and_fills_no_disk(course: Course, tmp_path: Path) -> None:
    handin = tmp_path / "add.zip"
    with zipfile.ZipFile(handin, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("add.py", USES_HELPER)
        with archive.open("helpers.py", "w", force_zip64=True) as member:
            block = b"#" * (1 << 20)
            for _ in range(256):  # 256 MiB of comment, about 250 KB compressed
                member.write(block)
    assert handin.stat().st_size < 1 << 20
    report = course.check(handin)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert report["tests"][0]["feedback"] == (f"the zip would unpack to {(256 << 20) + len(USES_HELPER)} bytes, more "
                                              f"than the {16 << 20} allowed (a zip bomb?); it is not unpacked")


def test_a_zip_of_a_hundred_thousand_members_is_refused_unread(course: Course, tmp_path: Path) -> None:
    handin = tmp_path / "add.zip"
    with zipfile.ZipFile(handin, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("add.py", USES_HELPER)
        for number in range(99_999):
            archive.writestr(f"m{number}", b"")
    report = course.check(handin)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    # Refused on the size its list of members declares, before zipfile builds an object per member.
    assert report["tests"][0]["feedback"].startswith("the zip's list of members takes ")
    assert report["tests"][0]["feedback"].endswith("a zip of at most 1000 members takes far less, so it is not read")


def test_a_zip_of_two_thousand_members_is_refused_by_their_count(course: Course, tmp_path: Path) -> None:
    handin = tmp_path / "add.zip"
    with zipfile.ZipFile(handin, "w", zipfile.ZIP_STORED) as archive:
        for number in range(2000):
            archive.writestr(f"m{number}", b"")
    report = course.check(handin)
    assert report["tests"][0]["feedback"] == ("the zip has 2000 members; at most 1000 are unpacked, so it is "
                                              "not graded")


def test_a_file_that_is_no_zip_says_so(course: Course, tmp_path: Path) -> None:
    report = course.check(write(tmp_path / "add.zip", b"PK\x03\x04 not really"))
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert report["tests"][0]["feedback"].startswith("the zip cannot be read: ")
