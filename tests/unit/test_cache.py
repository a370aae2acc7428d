"""Loaded exercises are kept on disk by content: a changed spec is loaded again, a broken one never kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cache import cache_dir, write_atomically
from grader.course import load_exercise
from grader.errors import SpecError

SPEC = """title: Squares
kind: function
entry: square
statement: Return n squared.
tests:
  - name: three
    call: square(3)
    expect: 9
"""


def kept(cache: Path) -> list[Path]:
    return sorted((cache / "exercises").glob("*.pickle"))


def test_a_spec_is_parsed_once_and_loaded_from_the_cache_while_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "exercises" / "squares.yaml"
    path.parent.mkdir()
    path.write_text(SPEC)
    first = load_exercise(path)
    assert len(kept(cache_dir())) == 1
    assert load_exercise(path) == first
    assert len(kept(cache_dir())) == 1  # the same content: the same entry, read back

    path.write_text(SPEC.replace("expect: 9", "expect: 10"))
    assert load_exercise(path).tests[0].expect == 10  # a changed spec is never served stale
    assert len(kept(cache_dir())) == 2


def test_a_broken_spec_reports_its_problems_at_every_load_and_is_never_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "exercises" / "squares.yaml"
    path.parent.mkdir()
    path.write_text(SPEC.replace("entry: square", "entyr: square"))
    for _ in range(2):
        with pytest.raises(SpecError) as error:
            load_exercise(path)
        assert any("unknown key 'entyr'" in str(problem) for problem in error.value.problems)
    assert kept(cache_dir()) == []


def test_a_damaged_cache_entry_is_loaded_again_from_the_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "exercises" / "squares.yaml"
    path.parent.mkdir()
    path.write_text(SPEC)
    load_exercise(path)
    [entry] = kept(cache_dir())
    entry.write_bytes(b"not a pickle")
    assert load_exercise(path).title == "Squares"


def test_a_cache_key_is_the_same_in_every_process_and_depends_on_every_part() -> None:
    import subprocess
    import sys

    from grader.cache import key_hash

    digest = key_hash(b"spec")
    digest.update(b"\0more")
    code = "from grader.cache import key_hash; k = key_hash(b'spec'); k.update(b'\\0more'); print(k.hexdigest())"
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "random", "PATH": ""}).stdout.strip()
    assert digest.hexdigest() == again  # another process (another hash seed) finds what this one kept
    assert len(again) == 16
    other = key_hash(b"spec")
    other.update(b"\0mord")
    assert other.hexdigest() != digest.hexdigest()


def test_a_file_written_atomically_replaces_the_old_one_whole_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "kept.json"
    target.write_bytes(b"old")
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.json"]


def test_the_cache_is_a_leaf_that_imports_nothing_from_the_grader() -> None:
    import ast

    import grader.cache

    tree = ast.parse(Path(grader.cache.__file__).read_text())
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert [name for name in imported if name.split(".")[0] == "grader"] == []
