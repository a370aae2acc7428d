"""The one way to register what varies: a name taken is refused, entries load on first use, installed
packages are looked at only when a name is not the grader's own, their bad entries are left out with a
warning, and every list that names outputs (command line, server, OpenAPI) reads the registry."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grader.checkers import CHECKERS, checker
from grader.model import CheckResult
from grader.outputs import OUTPUTS, Entry, Output
from grader.registry import Registry, RegistrationError


def agrees(expected: object, actual: object) -> CheckResult:
    return CheckResult(passed=True)


def test_a_name_taken_is_refused_naming_both_entries() -> None:
    with pytest.raises(RegistrationError) as refused:
        checker("value")(agrees)  # as a course's module, or a package's on import, would write it
    assert str(refused.value) == ("checker 'value' is registered already (grader.checkers:value); "
                                  "tests.unit.test_registry:agrees needs another name")
    assert CHECKERS["value"] is not agrees


def test_a_checker_that_returns_no_check_result_is_a_checker_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.checkers import CheckerError, run_checker
    from grader.model import CheckerSpec

    monkeypatch.setitem(CHECKERS, "yes-man", lambda expected, actual: True)
    with pytest.raises(CheckerError, match="checker 'yes-man' returned bool, not a CheckResult"):
        run_checker(CheckerSpec("yes-man", ()), 1, 2)


def test_the_same_entry_registered_again_is_no_clash() -> None:
    rules: Registry[object] = Registry(what="mutation rule")
    assert rules.register("swap")(agrees) is agrees and rules.register("swap", agrees) is agrees
    assert list(rules) == ["swap"]


def test_a_lazy_entry_is_imported_when_first_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lazy_probe_module.py").write_text("class Made:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    made: Registry[object] = Registry({"probe": "lazy_probe_module:Made"}, instantiate=True, what="kind")
    assert list(made) == ["probe"] and "lazy_probe_module" not in sys.modules
    assert type(made["probe"]).__name__ == "Made" and made["probe"] is made["probe"]
    monkeypatch.delitem(sys.modules, "lazy_probe_module")


def installed(root: Path, entry_points: str, module: str = "", name: str = "probe_plugin") -> Path:
    """A distribution as pip leaves one on the path: its dist-info (metadata, entry points) and its module."""
    info = root / f"{name}-2.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 2.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    (root / f"{name}.py").write_text(module)
    return root


MODULE = """\
from grader.outputs import Output

class Renders(Output):
    def render(self, report, out):
        out.write("probe")

class Nothing(Output):
    pass

RendersToo = Renders

NOT_AN_OUTPUT = 3
"""


@pytest.fixture
def outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Registry[Entry]:
    """A registry of two built-ins looking at the group `probe.outputs`, which one package fills."""
    monkeypatch.syspath_prepend(str(installed(tmp_path, """\
[probe.outputs]
renders = probe_plugin:Renders
json = probe_plugin:Renders
nothing = probe_plugin:Nothing
number = probe_plugin:NOT_AN_OUTPUT
gone = probe_plugin_missing:Renders
exits = probe_plugin_exits:Renders
bad\x1b[31mname = probe_plugin:Renders
""", MODULE)))
    installed(tmp_path, "[probe.outputs]\nrenders = probe_plugin:RendersToo\n", name="other_plugin")
    (tmp_path / "probe_plugin_exits.py").write_text("raise SystemExit(3)\n")  # a package's module ending the process
    from grader.outputs import adopt

    return Registry({"json": Entry("grader.outputs.json_report:JsonReport", report=True),
                     "csv": Entry("grader.outputs.csv_gradebook:CsvGradebook", batch=True)},
                    what="output format", group="probe.outputs", adopt=adopt)


def test_a_built_in_name_is_found_without_looking_at_installed_packages(
        outputs: Registry[Entry], capsys: pytest.CaptureFixture[str]) -> None:
    assert "json" in outputs and outputs["csv"].batch
    assert capsys.readouterr().err == ""  # the package's bad entries were not even read


def test_a_packages_entries_join_and_its_bad_ones_are_each_said(outputs: Registry[Entry],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert list(outputs) == ["json", "csv", "renders"]
    assert outputs["renders"] == Entry(outputs["renders"].where, report=True, default=False)
    said = capsys.readouterr().err.splitlines()
    source = "of package probe-plugin 2.0"
    assert said == [
        f"grader: warning: plugin 'bad\\x1b[31mname' (probe.outputs = probe_plugin:Renders) {source} is left out: "
        "its name must be letters, digits, '_', '-' and '.', at most 64 of them",
        f"grader: warning: plugin 'exits' (probe.outputs = probe_plugin_exits:Renders) {source} is left out: it "
        "cannot be loaded: SystemExit: 3",
        f"grader: warning: plugin 'gone' (probe.outputs = probe_plugin_missing:Renders) {source} is left out: it "
        "cannot be loaded: ModuleNotFoundError: No module named 'probe_plugin_missing'",
        f"grader: warning: plugin 'json' (probe.outputs = probe_plugin:Renders) {source} is refused: grader has "
        "its own output format 'json'; the package must give its entry point another name",
        f"grader: warning: plugin 'nothing' (probe.outputs = probe_plugin:Nothing) {source} is left out: it cannot "
        "be loaded: TypeError: Nothing overrides neither render (a report) nor write (a gradebook)",
        f"grader: warning: plugin 'number' (probe.outputs = probe_plugin:NOT_AN_OUTPUT) {source} is left out: it "
        "cannot be loaded: TypeError: 3 is not a subclass of grader.outputs.Output",
        "grader: warning: plugin 'renders' (probe.outputs = probe_plugin:RendersToo) of package other-plugin 2.0 is "
        f"refused: plugin 'renders' (probe.outputs = probe_plugin:Renders) {source} has the name already"]
    list(outputs)
    assert capsys.readouterr().err == ""  # said once


def test_names_are_read_when_asked_so_a_later_line_is_in_them(outputs: Registry[Entry]) -> None:
    reports = outputs.names(lambda entry: entry.report, first=("auto",), ordered=True)
    outputs["zebra"] = Entry("x:Y", report=True)
    assert list(reports) == ["auto", "json", "renders", "zebra"] and "zebra" in reports and "csv" not in reports
    assert reports == ("auto", "json", "renders", "zebra") and 3 not in reports


class Toy(Output):
    def write(self, book: object, folder: Path) -> list[Path]:
        return []


def test_an_lms_gradebook_is_one_line_and_every_list_of_formats_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.cli import build_parser
    from grader.server import openapi
    from grader.server.views import GRADEBOOK_FORMATS, ROSTER_FORMATS

    monkeypatch.setitem(OUTPUTS, "toy-lms", Entry(Toy, lms=True, roster=True, served=True))
    batch = build_parser(["batch"])._subparsers._group_actions[0].choices["batch"]  # type: ignore[union-attr]
    gradebook = next(action for action in batch._actions if action.dest == "gradebook")
    assert "toy-lms" in gradebook.choices and "toy-lms" in batch.format_help()
    assert "toy-lms" in GRADEBOOK_FORMATS and "toy-lms" in ROSTER_FORMATS
    document = openapi._document_text.__wrapped__()  # the served one is built once per process
    assert '"toy-lms"' in document


def test_the_mutants_schema_names_every_mutation_rule() -> None:
    # A JSON schema cannot read the registry: this keeps its enum and RULES one list.
    import json

    from grader.mutants.rules import RULES
    from tests.conftest import ROOT

    schema = json.loads((ROOT / "grader" / "schemas" / "mutants.schema.json").read_text())
    named = [node["properties"]["rule"]["enum"] for node in _nodes(schema) if "rule" in node.get("properties", {})]
    assert named == [list(RULES)]


def _nodes(value: object) -> list[dict]:  # type: ignore[type-arg]
    if isinstance(value, dict):
        return [value, *(node for item in value.values() for node in _nodes(item))]
    if isinstance(value, list):
        return [node for item in value for node in _nodes(item)]
    return []
