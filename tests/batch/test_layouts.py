"""The downloads each platform gives a teacher, built as the platform shapes them, read by discovery:
Canvas's flat folder and its zip, Moodle's per-submission folders, a Gradescope export, GitHub Classroom
repositories."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from grader.batch.discover import NameRule, discover
from grader.course import Course
from grader.errors import UsageError
from grader.model import Exercise
from tests.conftest import EXERCISES


@pytest.fixture(scope="module")
def exercises() -> list[Exercise]:
    return Course.at(EXERCISES).load_all()


def write(path: Path, text: str = "x = 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def canvas_download(root: Path) -> Path:
    # Canvas: <sortable name>[_LATE]_<user id>_<submission id>_<file name>, all in one folder; a
    # resubmitted file gets -1; the "sortable name" of two students can be the same.
    write(root / "smithbob_340934_208490284_count-queens.py")
    write(root / "smithbob_340934_208490285_n-queens.py")
    write(root / "jonesann_LATE_340935_208490290_count_queens.py")
    write(root / "leeamy_340936_208490300_count-queens-1.py")
    write(root / "leeamy_340937_208490301_count-queens.py")  # another leeamy
    write(root / "leeamy_340937_208490302_notes.txt")
    return root


def test_a_canvas_download_names_each_student_by_login_and_keeps_ids_and_late(tmp_path: Path,
                                                                            exercises: list[Exercise]) -> None:
    found = discover(canvas_download(tmp_path / "download"), exercises, NameRule())
    assert found.layout == "canvas"
    assert sorted(found.students) == ["jonesann", "leeamy_340936", "leeamy_340937", "smithbob"]
    assert found.ids["smithbob"] == {"id": "340934"}
    assert found.found[("smithbob", "n-queens")].path.name == "smithbob_340934_208490285_n-queens.py"
    assert found.found[("jonesann", "count-queens")].late and found.late("jonesann") == ["count-queens"]
    assert found.late("smithbob") == []
    assert found.found[("leeamy_340936", "count-queens")].path is not None  # name-1.py: a resubmission
    assert found.stray == ["leeamy_340937/leeamy_340937_208490302_notes.txt"]


def test_a_canvas_zip_is_unpacked_into_the_output_folder_and_read_the_same(tmp_path: Path,
                                                                         exercises: list[Exercise]) -> None:
    folder = canvas_download(tmp_path / "download")
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(folder.iterdir()):
            zipped.write(path, path.name)
        zipped.writestr("../escape.py", "print('out')\n")  # a path out of the folder is left out
    found = discover(archive, exercises, NameRule(), unpack_into=tmp_path / "out" / "unpacked")
    assert found.layout == "canvas" and found.root == tmp_path / "out" / "unpacked" / "submissions"
    assert len(found.students) == 4
    assert not (tmp_path / "out" / "escape.py").exists() and any("escape.py" in n for n in found.not_walked)


def test_a_moodle_download_has_a_folder_per_submission(tmp_path: Path, exercises: list[Exercise]) -> None:
    root = tmp_path / "download"
    write(root / "Ada Lovelace_1815_assignsubmission_file_" / "count-queens.py")
    write(root / "Ada Lovelace_1815_assignsubmission_file_" / "src" / "n_queens.py")
    write(root / "Ada Lovelace_1815_assignsubmission_onlinetext_" / "onlinetext.html", "<p>hi</p>")
    write(root / "Alan Turing_1912_assignsubmission_file_" / "count-queens (1).py")  # a browser's copy
    found = discover(root, exercises, NameRule())
    assert found.layout == "moodle"
    assert found.students == ["Ada Lovelace", "Alan Turing"]
    assert found.ids["Alan Turing"] == {"participant": "1912"}  # the participant id, not the user id
    assert found.found[("Ada Lovelace", "n-queens")].path.name == "n_queens.py"
    assert found.found[("Alan Turing", "count-queens")].path.name == "count-queens (1).py"


GRADESCOPE_METADATA = """\
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2026-11-01 10:00:00.000000000 -08:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: Alan Turing
    :sid: '1912'
    :email: alan@example.edu
  - :name: Grace Hopper
    :sid: '1906'
    :email: grace@example.edu
  :created_at: 2026-11-01 11:00:00.000000000 -08:00
  :score: 0.0
"""


def test_a_gradescope_export_names_each_submitter_from_its_metadata(tmp_path: Path,
                                                                   exercises: list[Exercise]) -> None:
    # Gradescope's "Export Submissions": assignment_<id>_export/ holding submission_metadata.yml and a
    # submission_<id>/ folder each; a group submission lists several submitters.
    export = tmp_path / "download" / "assignment_4242_export"
    write(export / "submission_metadata.yml", GRADESCOPE_METADATA)
    write(export / "submission_101" / "count-queens.py")
    write(export / "submission_102" / "count_queens.py")
    found = discover(tmp_path / "download", exercises, NameRule())
    assert found.layout == "gradescope"
    assert found.students == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert found.ids["Grace Hopper"] == {"submission": "submission_102", "email": "grace@example.edu",
                                         "sis_id": "1906"}
    assert found.found[("Grace Hopper", "count-queens")].path == export / "submission_102" / "count_queens.py"


def test_broken_gradescope_metadata_is_a_usage_error_naming_the_line(tmp_path: Path,
                                                                    exercises: list[Exercise]) -> None:
    write(tmp_path / "submission_metadata.yml", "submission_1:\n  :submitters: [\n")
    write(tmp_path / "submission_1" / "count-queens.py")
    with pytest.raises(UsageError, match=r"submission_metadata.yml:\d+:\d+"):
        discover(tmp_path, exercises, NameRule())


def test_github_classroom_repositories_are_named_by_login(tmp_path: Path, exercises: list[Exercise]) -> None:
    # GitHub Classroom clones each student's repository as <assignment>-<login>/.
    root = tmp_path / "hw3-submissions"
    for login in ("octocat", "ada-l"):
        repo = root / f"hw3-queens-{login}"
        write(repo / ".git" / "HEAD", "ref: refs/heads/main\n")
        write(repo / "README.md", "# hw3\n")
        write(repo / "src" / "count_queens.py")
    found = discover(root, exercises, NameRule())
    assert found.layout == "github-classroom"
    assert found.students == ["ada-l", "octocat"]
    assert found.ids["octocat"] == {"login": "octocat"}
    assert found.found[("octocat", "count-queens")].path == root / "hw3-queens-octocat" / "src" / "count_queens.py"


def test_a_folder_too_deep_is_reported_not_silently_missing(tmp_path: Path, exercises: list[Exercise]) -> None:
    deep = tmp_path / "class" / "ada"
    for level in range(10):
        deep = deep / f"level{level}"
    write(deep / "count-queens.py")
    write(tmp_path / "class" / "alan" / "count-queens.py")
    found = discover(tmp_path / "class", exercises, NameRule())
    assert found.found[("ada", "count-queens")].path is None
    assert any(item.startswith("ada/") and "deeper than" in item for item in found.not_walked)


def test_the_layout_can_be_named_instead_of_detected(tmp_path: Path, exercises: list[Exercise]) -> None:
    canvas_download(tmp_path / "download")
    (tmp_path / "download" / "extra-folder").mkdir()
    found = discover(tmp_path / "download", exercises, NameRule(), layout="canvas")
    assert found.layout == "canvas" and "smithbob" in found.students


def test_the_command_line_offers_every_layout_and_roster_column() -> None:
    from grader.batch.layouts import LAYOUTS
    from grader.batch.roster import COLUMNS
    from grader.cli import build_parser
    from grader.commands.batch import ROSTER_COLUMNS

    batch = build_parser(["batch"])._subparsers._group_actions[0].choices["batch"]  # type: ignore[union-attr]
    layout = next(action for action in batch._actions if action.dest == "layout")
    assert tuple(layout.choices) == ("auto", *LAYOUTS) and ROSTER_COLUMNS == COLUMNS


def test_a_file_wins_over_a_folder_of_the_same_name(tmp_path: Path, exercises: list[Exercise]) -> None:
    # Unzipping count-queens.py.zip in place gives a folder count-queens.py/ holding the file.
    write(tmp_path / "class" / "ada" / "count-queens.py" / "count-queens.py")
    found = discover(tmp_path / "class", exercises, NameRule())
    chosen = found.found[("ada", "count-queens")]
    assert chosen.path == tmp_path / "class" / "ada" / "count-queens.py" / "count-queens.py"
    assert chosen.refused == ""


# ---------------------------------------------------------------- Canvas and Moodle downloads as they really come
def test_canvas_old_and_new_late_markers_and_logins_with_underscores_are_read(tmp_path: Path,
                                                                            exercises: list[Exercise]) -> None:
    root = tmp_path / "download"
    write(root / "knuthdonald_late_1938_208490400_count-queens.py")  # before 2018 Canvas wrote _late_
    write(root / "o_brienpat_340950_208490401_count-queens.py")  # a login may hold `_`
    write(root / "o_brienpat_340950_208490402_n-queens.py")
    write(root / "van_der_berg_LATE_340951_208490403_count-queens.py")
    found = discover(root, exercises, NameRule())
    assert found.layout == "canvas"
    assert sorted(found.students) == ["knuthdonald", "o_brienpat", "van_der_berg"]
    assert found.ids["knuthdonald"] == {"id": "1938"} and found.late("knuthdonald") == ["count-queens"]
    assert found.ids["o_brienpat"] == {"id": "340950"} and found.late("o_brienpat") == []
    assert found.found[("o_brienpat", "n-queens")].path.name.endswith("_n-queens.py")
    assert found.late("van_der_berg") == ["count-queens"]
    assert found.stray == []


def test_an_anonymous_canvas_download_is_graded_by_anonymous_id(tmp_path: Path, exercises: list[Exercise]) -> None:
    root = tmp_path / "download"
    write(root / "anon_Ab12C_208490500_count-queens.py")
    write(root / "LATE_anon_Zz9Q1_208490501_count-queens.py")
    found = discover(root, exercises, NameRule())
    assert found.layout == "canvas"
    assert sorted(found.students) == ["anon_Ab12C", "anon_Zz9Q1"]
    assert found.ids["anon_Ab12C"] == {"participant": "Ab12C"}
    assert found.late("anon_Zz9Q1") == ["count-queens"] and found.late("anon_Ab12C") == []


def test_the_latest_canvas_resubmission_is_graded_and_the_others_listed(tmp_path: Path,
                                                                      exercises: list[Exercise]) -> None:
    root = tmp_path / "download"
    write(root / "leeamy_340936_208490300_count-queens.py")
    write(root / "leeamy_340936_208490301_count-queens-1.py")
    write(root / "leeamy_340936_208490302_count-queens-2.py")
    found = discover(root, exercises, NameRule())
    assert found.found[("leeamy", "count-queens")].path.name == "leeamy_340936_208490302_count-queens-2.py"
    assert sorted(found.duplicates) == [
        "leeamy/leeamy_340936_208490300_count-queens.py (graded leeamy_340936_208490302_count-queens-2.py for "
        "count-queens)",
        "leeamy/leeamy_340936_208490301_count-queens-1.py (graded leeamy_340936_208490302_count-queens-2.py for "
        "count-queens)"]


def test_a_roster_participant_column_names_anonymous_and_moodle_students(tmp_path: Path,
                                                                       exercises: list[Exercise]) -> None:
    from grader.batch.roster import class_list, load_roster

    canvas_root = tmp_path / "canvas"
    write(canvas_root / "anon_Ab12C_208490500_count-queens.py")
    moodle_root = tmp_path / "moodle"
    write(moodle_root / "Ada Lovelace_1815_assignsubmission_file_" / "count-queens.py")
    roster = tmp_path / "roster.csv"
    roster.write_text("folder,name,sis_id,participant\n,Grace Hopper,G-1906,Ab12C\n,Ada Lovelace,A-1815,1815\n")
    for root, student, name in ((canvas_root, "anon_Ab12C", "Grace Hopper"), (moodle_root, "Ada Lovelace", "Ada Lovelace")):
        found = discover(root, exercises, NameRule())
        known = class_list(found.students, found.ids, {}, load_roster(roster), {}, found.layout)
        graded = [p for p in known["roster"] if p["status"] == "graded"]
        assert [(p["student"], p["name"]) for p in graded] == [(student, name)] and known["unknown"] == []
    # Without a roster, Moodle's number is kept as what it is: the participant id, never a user id.
    found = discover(moodle_root, exercises, NameRule())
    alone = class_list(found.students, found.ids, {}, None, {}, found.layout)["roster"]
    assert alone[0]["participant"] == "1815" and alone[0]["id"] == ""
