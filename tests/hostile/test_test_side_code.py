"""Test-side code the submission cannot reach: a spec's test_setup, its helpers and the names a test's
expression uses are bound before the submission loads, from modules it has not touched. A submission that
monkeypatches builtins, collections, operator, functools, math, re or sys.modules while it loads gives a
wrong answer that stays wrong: either the test never sees the patch, or it says the submission changed
the test's own code."""

from __future__ import annotations

import pytest

from tests.hostile.host import Course

# family: (test_setup, the test's call, its expected answer, the submission: a wrong answer and its patch)
ATTACKS = {
    "builtins": ("def pairs_of(n):\n    return n * (n - 1) // 2\n", "len(pairs(4))", "6",
                 "import builtins\nbuiltins.len = lambda items: 6\n\ndef pairs(n):\n    return [1, 2, 3, 4, 5]\n"),
    "builtins in a helper": ("def size(items):\n    return len(items)\n", "size(pairs(4))", "6",
                             "import builtins\nbuiltins.len = lambda items: 6\n\n"
                             "def pairs(n):\n    return [1, 2, 3, 4, 5]\n"),
    "collections": ("from collections import Counter\n", "max(Counter(pick()).values())", "1",
                    "import collections\n\nclass Fake(dict):\n    def __init__(self, items):\n"
                    "        super().__init__((item, 1) for item in items)\n\ncollections.Counter = Fake\n\n"
                    "def pick():\n    return ['og', 'og']\n"),
    "collections' class": ("from collections import Counter\n", "max(Counter(pick()).values())", "1",
                           "import collections\ncollections.Counter.values = lambda self: [1]\n\n"
                           "def pick():\n    return ['og', 'og']\n"),
    "operator": ("import operator\n", "operator.eq(answer(), 42)", "true",
                 "import operator\noperator.eq = lambda a, b: True\n\ndef answer():\n    return 41\n"),
    "functools": ("import functools\n", "functools.reduce(lambda a, b: a * b, factors(12))", "12",
                  "import functools\nfunctools.reduce = lambda f, items: 12\n\ndef factors(n):\n    return [2, 2, 2]\n"),
    "math": ("import math\n", "math.isclose(area(1.0), 3.14159, rel_tol=1e-4)", "true",
             "import math\nmath.isclose = lambda *a, **k: True\n\ndef area(r):\n    return 3 * r * r\n"),
    "re": ("import re\n", "bool(re.fullmatch('[0-9]{3}-[0-9]{4}', phone()))", "true",
           "import re\nre.fullmatch = lambda *a, **k: True\n\ndef phone():\n    return 'no number'\n"),
    "sys.modules": ("def tally(items):\n    from collections import Counter\n    return Counter(items)\n",
                    "max(tally(pick()).values())", "1",
                    "import sys, types\nfake = types.ModuleType('collections')\n\nclass Fake(dict):\n"
                    "    def __init__(self, items):\n        super().__init__((item, 1) for item in items)\n\n"
                    "fake.Counter = Fake\nsys.modules['collections'] = fake\n\ndef pick():\n    return ['og', 'og']\n"),
}


def spec(test_setup: str, call: str, expect: str, entry: str) -> str:
    indented = "".join(f"  {line}\n" if line else "\n" for line in test_setup.splitlines())
    return (f"title: Test side\nkind: function\nentry: {entry}\nstatement: x\ntest_setup: |\n{indented}"
            f"tests:\n  - name: attacked\n    call: \"{call}\"\n    checker: equal\n    expect: {expect}\n"
            f"  - name: plain\n    call: \"len([1, 2]) + abs(-1)\"\n    expect: 3\n")


@pytest.mark.parametrize("family", ATTACKS)
def test_a_patched_module_does_not_change_what_a_test_checks(hostile: Course, family: str) -> None:
    test_setup, call, expect, code = ATTACKS[family]
    folder = hostile.root / "exercises"
    folder.mkdir(parents=True, exist_ok=True)
    entry = code.rpartition("def ")[2].partition("(")[0]
    (folder / "hostile.yaml").write_text(spec(test_setup, call, expect, entry))
    result = hostile.check(code, "--all")
    tests = {t["name"]: t for t in result.json()["tests"]}
    attacked = tests["attacked"]
    assert attacked["verdict"] in ("wrong_answer", "runtime_error"), (family, attacked)
    if attacked["verdict"] == "runtime_error":
        assert "the submission changed" in attacked["feedback"] and "test's own code" in attacked["feedback"]
    assert tests["plain"]["verdict"] in ("passed", "runtime_error"), tests["plain"]


def test_a_patched_builtin_does_not_change_how_the_harness_compares_an_equals_step(hostile: Course) -> None:
    folder = hostile.root / "exercises"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hostile.yaml").write_text(
        "title: Equals\nkind: function\nentry: Box\nstatement: x\ntests:\n  - name: different boxes\n"
        "    steps:\n      - {do: \"Box(1)\", equals: \"Box(2)\"}\n")
    code = ("import builtins\nbuiltins.bool = lambda value: True\nbuiltins.repr = lambda value: 'Box'\n\n\n"
            "class Box:\n    def __init__(self, n):\n        self.n = n\n\n"
            "    def __eq__(self, other):\n        return self.n == other.n\n")
    result = hostile.check(code, "--all")
    tests = {t["name"]: t for t in result.json()["tests"]}
    assert tests["different boxes"]["verdict"] == "wrong_answer", tests["different boxes"]
