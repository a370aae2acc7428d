"""Classes made up for the batch tests: a small course of our own whose scores are known by construction,
and a class written from the shipped reference solutions (their folder names are their verdicts)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import EXERCISES, REFERENCE

COURSE = {
    "add": """\
title: Add two numbers
kind: function
entry: add
statement: Return `a + b`.
limits:
  cpu: 0.5
tests:
  - name: add(1, 2)
    call: add(1, 2)
    expect: 3
  - name: add(-1, 1)
    call: add(-1, 1)
    expect: 0
    hidden: true
  - name: add(5000, 1)
    call: add(5000, 1)
    expect: 5001
    hidden: true
  - name: add(2, 2)
    call: add(2, 2)
    expect: 4
""",
    "shout": """\
title: Shout
kind: program
statement: Print the line you read, in capitals.
limits:
  cpu: 0.5
tests:
  - name: hello
    stdin: "hello\\n"
    expect: "HELLO\\n"
    points: 2
  - name: two words
    stdin: "abc def\\n"
    expect: "ABC DEF\\n"
    hidden: true
    points: 2
""",
    "guess": """\
title: What does it print?
kind: predict
statement: Without running it, what does this print?
snippet: |
  print(6 * 7)
tests:
  - name: Output
""",
}


@dataclass(frozen=True)
class Variant:
    """A way to answer an exercise, the verdict it must get and the points it must score."""

    name: str
    content: bytes | None  # None: no file at all
    verdict: str
    score: float
    unique: bool = True  # add a comment naming the student, so that no two students share the file


def _code(text: str) -> bytes:
    return text.encode()


VARIANTS: dict[str, list[Variant]] = {
    "add": [
        Variant("correct", _code("def add(a, b):\n    return a + b\n"), "passed", 4),
        Variant("negatives", _code("def add(a, b):\n    return a + b if a >= 0 else 1\n"), "wrong_answer", 3),
        Variant("slow", _code("def add(a, b):\n    while a > 1000:\n        pass\n    return a + b\n"),
                "timeout", 3),
        Variant("crash", _code("raise RuntimeError('not today')\n"), "runtime_error", 0),
        Variant("correct", _code("def add(a, b):\n    return b + a\n"), "passed", 4, unique=False),
        Variant("segfault", _code("import ctypes\n\ndef add(a, b):\n    return ctypes.string_at(0)\n"),
                "runtime_error", 0),
        Variant("syntax", _code("def add(a, b)\n    return a + b\n"), "syntax_error", 0),
        Variant("missing", None, "missing", 0),
    ],
    "shout": [
        Variant("correct", _code("print(input().upper())\n"), "passed", 4),
        Variant("first only", _code("s = input()\nprint(s.upper() if s == 'hello' else s)\n"), "wrong_answer", 2),
        Variant("html", _code("input()\nprint('<script>alert(1)</script>')\n"), "wrong_answer", 0),
        Variant("escape codes", _code("input()\nprint('\\x1b[31mRED\\x07\\x00')\n"), "wrong_answer", 0),
        Variant("exits", _code("import sys\nsys.exit(3)\n"), "runtime_error", 0),
        Variant("binary", b"print('hi')\0\x01\x02", "runtime_error", 0, unique=False),
        Variant("missing", None, "missing", 0),
    ],
    "guess": [
        Variant("correct", b"42\n", "passed", 1, unique=False),
        Variant("wrong", b"43\n", "wrong_answer", 0, unique=False),
        Variant("missing", None, "missing", 0),
    ],
}
SUFFIX = {"add": ".py", "shout": ".py", "guess": ".txt"}
# Student folder names that are hostile to the outputs: markup, a spreadsheet formula.
ODD_NAMES = ['<img src=x onerror=alert(1)>Zoë & "co"', "=1+1"]


def write_course(root: Path) -> Path:
    folder = root / "exercises"
    folder.mkdir(parents=True, exist_ok=True)
    for exercise_id, text in COURSE.items():
        (folder / f"{exercise_id}.yaml").write_text(text)
    return folder


def student_names(count: int) -> list[str]:
    return [f"s{number:03d}" for number in range(count - len(ODD_NAMES))] + ODD_NAMES


def write_class(root: Path, count: int = 64) -> dict[str, dict[str, Variant]]:
    """count students, each answering each exercise with a variant chosen by turns; returns who got what."""
    chosen: dict[str, dict[str, Variant]] = {}
    for number, student in enumerate(student_names(count)):
        folder = root / student
        folder.mkdir(parents=True)
        chosen[student] = {}
        for exercise_id, variants in VARIANTS.items():
            variant = variants[(number + len(exercise_id)) % len(variants)]
            chosen[student][exercise_id] = variant
            if variant.content is not None:
                comment = f"# {number}\n".encode() if variant.unique and SUFFIX[exercise_id] == ".py" else b""
                (folder / f"{exercise_id}{SUFFIX[exercise_id]}").write_bytes(comment + variant.content)
    return chosen


def expected_gradebook(chosen: dict[str, dict[str, Variant]]) -> dict[str, dict[str, float]]:
    return {student: {**{e: v.score for e, v in answers.items()}, "total": sum(v.score for v in answers.values())}
            for student, answers in chosen.items()}


# ---------------------------------------------------------------- a class from the shipped references
SHIPPED = ("count-queens", "n-queens-ii", "predict-attacked")


def write_reference_class(root: Path, count: int = 60) -> dict[tuple[str, str], str]:
    """Each student hands in a shipped reference (or nothing) per exercise; returns the expected verdicts.
    Slow references are few (each costs seconds of CPU), and identical files are graded once anyway."""
    expected: dict[tuple[str, str], str] = {}
    for exercise_id in SHIPPED:
        files = sorted(p for p in (REFERENCE / exercise_id).glob("*/*") if p.parent.name != "timeout")
        slow = sorted((REFERENCE / exercise_id / "timeout").glob("*"))[:1]
        for number in range(count):
            student = root / f"student{number:02d}"
            student.mkdir(parents=True, exist_ok=True)
            if number % 10 == 9:
                expected[(student.name, exercise_id)] = "missing"
                continue
            source = slow[0] if slow and number % 20 == 3 else files[number % len(files)]
            suffix = ".txt" if exercise_id.startswith("predict") else ".py"
            shutil.copyfile(source, student / f"{exercise_id}{suffix}")
            expected[(student.name, exercise_id)] = source.parent.name
    return expected


def shipped_exercises() -> Path:
    return EXERCISES


def children_of(pid: int) -> list[int]:
    """The direct children of a process (every thread's), from /proc."""
    pids: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return pids
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as children:
                pids += [int(p) for p in children.read().split()]
        except OSError:
            continue
    return pids
