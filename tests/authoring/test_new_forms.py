"""`grader new --form`: a class tested by steps, a program with files; each loads and passes once filled in."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

STACK = '''"""A list kept inside."""


class CountRooks:
    def __init__(self):
        self.items = []

    def add(self, item):
        if item is None:
            raise ValueError("no None")
        self.items.append(item)

    def __len__(self):
        return len(self.items)
'''


def test_a_class_scaffold_is_tested_by_steps_and_validates_once_filled_in(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    assert run_cli("new", "count-rooks", "--form", "class", "--exercises", exercises).returncode == 0
    spec = (exercises / "count-rooks.yaml").read_text()
    assert "entry: CountRooks" in spec and "steps:" in spec and "class CountRooks:" in spec
    assert "def count_rooks" not in spec
    unfilled = run_cli("validate", "--exercises", exercises)
    assert unfilled.returncode == 1 and "✗ the title still says TODO" in unfilled.stdout

    (exercises / "count-rooks.yaml").write_text(
        spec.replace("TODO one line that names the class", "A bag of rooks").replace("TODO:", "Write")
        .replace("TODO", "Start with a list."))
    reference = tmp_path / "reference" / "count-rooks"
    (reference / "accepted" / "plain.py").write_text(STACK)
    (reference / "accepted" / "other_style.py").write_text(STACK.replace("[]", "list()"))
    (reference / "wrong_answer" / "shared_state.py").write_text(STACK.replace('            raise ValueError("no None")\n', "            pass\n"))
    filled = run_cli("validate", "--exercises", exercises)
    assert filled.returncode == 0, filled.stdout


def test_a_files_scaffold_runs_a_program_with_arguments_and_files(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    assert run_cli("new", "copy-it", "--kind", "program", "--form", "files", "--exercises", exercises).returncode == 0
    spec = (exercises / "copy-it.yaml").read_text()
    for key in ("args: [input.txt, out.txt]", "files:", "output_files:", "exit_status: 1", "stderr: nonempty"):
        assert key in spec
    listed = run_cli("list", "--exercises", exercises)
    assert listed.returncode == 0 and "copy-it" in listed.stdout, listed.stderr


def test_a_form_the_kind_does_not_have_is_a_usage_error(tmp_path: Path) -> None:
    refused = run_cli("new", "guess-it", "--kind", "predict", "--form", "class", "--exercises", tmp_path / "exercises")
    assert refused.returncode == 2 and "a predict exercise has no form 'class'; its forms: plain" in refused.stderr
    assert not (tmp_path / "exercises").exists()
