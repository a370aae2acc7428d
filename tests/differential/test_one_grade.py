"""One right grade, however the grader runs: every reference of every shipped course (the bundled one and
examples/basics), graded through every entry point, under each layer set a course meets, with an empty
cache and a warm one, gets the same score and the same per-test verdicts.

The baseline is a batch under every layer with an empty cache. Each other cell is compared with it:
- `grader check` in each format (json --all, prairielearn, gradescope, github-classroom), each reference
  through every format, the layer set and the cache state rotating over the references, so that every
  format meets every layer set and both cache states (the full product would take most of CI);
- a batch as PID 1 of a new PID namespace under a container's layers, a batch on a Dask cluster,
  `grader gradescope-run` and `grader check --watch`, over every reference that is not a timeout one
  (those cost their limit on every test: they take the baseline, one check cell and `validate`);
- `grader validate` of each course, which grades every reference against its verdict folder.
A layer set that cannot be had here is skipped, saying why; it never passes silently."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, templated

SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}"
NOBODY = 65534
CONTAINER = "uid,seccomp,landlock"  # what a plain Docker container lets the grader have, as root
LAYER_SETS = ("every", "container", "pid1", "nonroot")
FORMATS = ("json", "prairielearn", "gradescope", "github-classroom")
SUFFIXES = (".py", ".txt", ".ipynb")


@dataclass(frozen=True)
class Reference:
    course: str
    exercise: str
    verdict: str  # its folder
    path: Path  # in the copied course

    @property
    def student(self) -> str:
        return f"{self.exercise}--{self.verdict}--{self.path.stem}"

    @property
    def slow(self) -> bool:
        return self.verdict == "timeout"


Grade = tuple[float, tuple[tuple[str, str | None, float], ...]]  # score, (test, verdict or None, points)


def _unavailable(layer_set: str) -> str:
    """Why a layer set cannot be had on this machine ('' when it can)."""
    if layer_set in ("container", "pid1", "every") and os.geteuid() != 0:
        return "needs root (a container's grader is root)"
    if layer_set == "pid1":
        probe = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True)
        return "" if probe.returncode == 0 else f"no new PID namespace here: {probe.stderr.decode().strip()}"
    if layer_set == "nonroot":
        if os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists(SYSTEM_PYTHON):
            return "needs root, setpriv and the system's Python to become another user"
    return ""


@dataclass
class Setup:
    root: Path  # world-readable: the courses, the class folders, the caches
    courses: dict[str, Path]  # course name -> its exercises folder
    references: list[Reference]
    baseline: dict[tuple[str, str], Grade]  # (course, student) -> grade
    warm: Path  # the baseline's cache, filled
    skipped: dict[str, str]

    def command(self, layer_set: str, argv: list[str]) -> list[str] | None:
        """The argv and environment that run `grader ARGV` under a layer set (None: it cannot be had)."""
        if self.skipped.get(layer_set):
            return None
        grader = [sys.executable, "-m", "grader"]
        if layer_set == "pid1":
            return ["unshare", "--pid", "--fork", "--mount-proc", *grader, *argv]
        if layer_set == "nonroot":
            return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", SYSTEM_PYTHON,
                    "-m", "grader", *argv]
        return [*grader, *argv]

    def env(self, layer_set: str, cache: Path) -> dict[str, str]:
        env = {**os.environ, "GRADER_CACHE": str(cache)}
        env.pop("GRADER_LAYERS", None)
        if layer_set in ("container", "pid1"):
            env["GRADER_LAYERS"] = CONTAINER
        if layer_set == "nonroot":
            site = next((Path(sys.prefix) / "lib").glob("python3*/site-packages"))
            env.update(PATH="/usr/bin:/bin", HOME=str(self.root / "cwd"), PYTHONPATH=f"{ROOT}:{site}")
        return env

    def cache(self, name: str, warm: bool, layer_set: str) -> Path:
        """An empty cache folder, or a copy of the baseline's filled one; the user of the layer set owns it."""
        path = self.root / "caches" / name
        if warm:
            shutil.copytree(self.warm, path)
        else:
            path.mkdir(parents=True)
        if layer_set == "nonroot":
            for folder, _, files in os.walk(path):
                for item in (folder, *(os.path.join(folder, f) for f in files)):
                    os.chown(item, NOBODY, NOBODY)
        return path

    def run(self, layer_set: str, argv: list[str], cache: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        command = self.command(layer_set, argv)
        assert command is not None
        cwd = self.root / "cwd"
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=self.env(layer_set, cache),
                              cwd=cwd)


def _copy_courses(root: Path) -> dict[str, Path]:
    bundled = root / "bundled"
    bundled.mkdir()
    for name in ("exercises", "reference"):
        shutil.copytree(ROOT / name, bundled / name, ignore=shutil.ignore_patterns(".calibration"))
    shutil.copytree(ROOT / "examples" / "basics", root / "basics", ignore=shutil.ignore_patterns(".calibration"))
    return {"bundled": bundled / "exercises", "basics": root / "basics" / "exercises"}


def _references(courses: dict[str, Path]) -> list[Reference]:
    found = []
    for course, exercises in courses.items():
        for path in sorted((exercises.parent / "reference").glob("*/*/*")):
            if templated(path):
                continue
            if path.suffix in SUFFIXES:
                found.append(Reference(course, path.parent.parent.name, path.parent.name, path))
    return found


def _class_folder(root: Path, references: list[Reference]) -> Path:
    """One student per reference, its file named as the exercise asks."""
    root.mkdir(parents=True)
    for reference in references:
        folder = root / reference.student
        folder.mkdir()
        shutil.copy(reference.path, folder / f"{reference.exercise}{reference.path.suffix}")
    return root


def _from_grades(out: Path) -> dict[str, Grade]:
    """student -> the grade of the one exercise they handed in, from a batch's grades.json."""
    export = json.loads((out / "grades.json").read_text())
    grades = {}
    for student in export["students"]:
        exercise = student["student"].split("--")[0]
        cell = student["exercises"][exercise]
        grades[student["student"]] = (cell["score"], tuple((t["name"], NEAR + t["verdict"] if _near_limit(t)
                                                            else t["verdict"], t["points"]) for t in cell["tests"]))
    return grades


# A test whose CPU came within this factor of its limit may end on either side of it on a loaded machine (a
# timeout reference's case that takes about its limit): what it gets is the machine's word, not the grading
# path's, so a baseline's such test is left out of the comparison: its verdict is marked with NEAR.
NEAR, NEAR_FACTOR = "~", 2.0


def _near_limit(test: dict) -> bool:
    limit = test["limit_seconds"]
    return limit > 0 and limit / NEAR_FACTOR <= test["cpu_seconds"] <= limit * NEAR_FACTOR


def _from_report(text: str, output: str, exercise: str) -> Grade:
    """The grade in one report of `grader check --format OUTPUT` (platform formats carry points, not verdicts)."""
    data = json.loads(text)
    if output == "json":
        return data["score"], tuple((t["name"], t["verdict"], t["points"]) for t in data["tests"])
    if output == "prairielearn":
        tests = tuple((t["name"], None, t["points"]) for t in data["tests"])
    elif output == "gradescope":
        tests = tuple((t["name"].removeprefix(f"{exercise}: "), None, t["score"]) for t in data["tests"])
    else:
        tests = tuple((t["name"], None, t["score"]) for t in data["tests"])
    return sum(points for _, _, points in tests), tests


def _same(got: Grade, want: Grade) -> bool:
    """The same per-test points, and so the same score, and the same verdicts where both name them; a test
    that either side ran near its limit is left out (see NEAR): on a slow machine the way compared may be
    the one that comes near it."""
    if len(got[1]) != len(want[1]):
        return False
    kept = [(g, w) for g, w in zip(got[1], want[1])
            if not (w[1] or "").startswith(NEAR) and not (g[1] or "").startswith(NEAR)]
    if abs(sum(g[2] for g, _ in kept) - sum(w[2] for _, w in kept)) > 1e-9:
        return False
    return all(g[0] == w[0] and abs(g[2] - w[2]) < 1e-9 and (g[1] is None or w[1] is None or g[1] == w[1])
               for g, w in kept)


def _batch(setup: Setup, layer_set: str, cache: Path, references: list[Reference], name: str,
           *extra: str) -> dict[tuple[str, str], Grade]:
    grades = {}
    for course, exercises in setup.courses.items():
        chosen = [r for r in references if r.course == course]
        if not chosen:
            continue
        submissions = _class_folder(setup.root / "classes" / f"{name}-{course}", chosen)
        out = setup.root / "out" / f"{name}-{course}"
        workers = [] if "--cluster" in extra else ["--workers", "2"]
        done = setup.run(layer_set, ["batch", str(submissions), "--exercises", str(exercises), "--out", str(out),
                                     "--outputs", "json", *workers, *extra], cache)
        assert done.returncode in (0, 1), f"{name} {course}: {done.stderr}"
        grades.update({(course, student): grade for student, grade in _from_grades(out).items()})
    return grades


@pytest.fixture(scope="module")
def setup() -> Iterator[Setup]:
    # In /tmp itself, not pytest's folder: that one is 0700 (and made so again by every pytest session),
    # and uid 65534 must reach the courses.
    root = Path(tempfile.mkdtemp(prefix="grader-one-grade-"))
    root.chmod(0o755)
    try:
        yield _prepared(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _prepared(root: Path) -> Setup:
    (root / "cwd").mkdir()
    (root / "cwd").chmod(0o1777)
    courses = _copy_courses(root)
    references = _references(courses)
    for folder, dirs, files in os.walk(root):
        for item in (folder, *(os.path.join(folder, f) for f in files)):
            os.chmod(item, os.stat(item).st_mode | 0o755 if os.path.isdir(item) else os.stat(item).st_mode | 0o644)
    skipped = {name: _unavailable(name) for name in LAYER_SETS}
    setup = Setup(root, courses, references, {}, root / "caches" / "baseline", skipped)
    if skipped["every"]:
        pytest.skip(f"every layer: {skipped['every']}")
    cold = setup.cache("baseline", warm=False, layer_set="every")
    setup.baseline = _batch(setup, "every", cold, references, "baseline")
    return setup


def test_the_baseline_grades_every_reference_as_its_folder_says(setup: Setup) -> None:
    assert len(setup.references) >= 100
    for reference in setup.references:
        score, tests = setup.baseline[(reference.course, reference.student)]
        verdicts = {verdict.removeprefix(NEAR) for _, verdict, _ in tests}
        if reference.verdict == "accepted":
            assert verdicts == {"passed"}, reference
        else:
            assert reference.verdict in verdicts, (reference, tests)


def _check_cells(setup: Setup) -> list[tuple[Reference, str, str, bool]]:
    """(reference, format, layer set, warm): every reference through `--format json --all` and one of the
    platforms' formats (a timeout reference through one of the four), the layer set and the cache
    rotating so that every format meets every layer set with both caches."""
    cells = []
    platforms = FORMATS[1:]
    for index, reference in enumerate(setup.references):
        chosen = [FORMATS[index % len(FORMATS)]] if reference.slow else ["json", platforms[index % len(platforms)]]
        for number, output in enumerate(chosen):
            turn = index + number * 5
            cells.append((reference, output, LAYER_SETS[turn % len(LAYER_SETS)],
                          (turn // len(LAYER_SETS)) % 2 == 1))
    return cells


def test_grader_check_in_every_format_under_every_layer_set_gives_the_baseline_grade(setup: Setup) -> None:
    cells = _check_cells(setup)
    seen = {(output, layer_set, warm) for _, output, layer_set, warm in cells}
    assert len(seen) == len(FORMATS) * len(LAYER_SETS) * 2  # every format meets every layer set, both caches

    def grade(numbered: tuple[int, tuple[Reference, str, str, bool]]) -> str:
        number, (reference, output, layer_set, warm) = numbered
        if setup.skipped[layer_set]:
            return ""
        cache = setup.cache(f"check-{number}", warm, layer_set)
        argv = ["check", reference.exercise, str(reference.path), "--exercises", str(setup.courses[reference.course]),
                "--format", output, *(["--all"] if output == "json" else [])]
        done = setup.run(layer_set, argv, cache)
        where = f"{reference.course}/{reference.student} --format {output} [{layer_set}, {'warm' if warm else 'empty'} cache]"
        if done.returncode not in (0, 1):
            return f"{where}: exit {done.returncode}: {done.stderr.strip()[-500:]}"
        got = _from_report(done.stdout, output, reference.exercise)
        want = setup.baseline[(reference.course, reference.student)]
        return "" if _same(got, want) else f"{where}: {got} != {want}"

    with ThreadPoolExecutor(max_workers=2) as pool:  # two cores: two CLI processes at a time
        differences = [d for d in pool.map(grade, enumerate(cells)) if d]
    assert not differences, "\n".join(differences)
    _say_skipped(setup)


def _say_skipped(setup: Setup) -> None:
    skipped = {name: why for name, why in setup.skipped.items() if why}
    if skipped:
        pytest.skip("layer sets not available here: " + "; ".join(f"{n}: {w}" for n, w in skipped.items()))


def _quick(setup: Setup) -> list[Reference]:
    return [r for r in setup.references if not r.slow]


def _compare(setup: Setup, grades: dict[tuple[str, str], Grade], references: list[Reference], where: str) -> None:
    differences = [f"{where} {r.course}/{r.student}: {grades.get((r.course, r.student))} != "
                   f"{setup.baseline[(r.course, r.student)]}" for r in references
                   if not _same(grades.get((r.course, r.student), (-1.0, ())), setup.baseline[(r.course, r.student)])]
    assert not differences, "\n".join(differences)


@pytest.mark.parametrize("layer_set", ["pid1", "container"])
def test_a_batch_under_a_containers_layers_gives_the_baseline_grades(setup: Setup, layer_set: str) -> None:
    if setup.skipped[layer_set]:
        pytest.skip(f"{layer_set}: {setup.skipped[layer_set]}")
    warm = layer_set == "pid1"  # as PID 1 with the baseline's cache; as a plain container with an empty one
    cache = setup.cache(f"batch-{layer_set}", warm=warm, layer_set=layer_set)
    _compare(setup, _batch(setup, layer_set, cache, _quick(setup), f"batch-{layer_set}"), _quick(setup),
             f"batch [{layer_set}]")


def test_a_batch_on_a_dask_cluster_gives_the_baseline_grades(setup: Setup) -> None:
    pytest.importorskip("distributed")
    cache = setup.cache("dask", warm=True, layer_set="every")
    grades = _batch(setup, "every", cache, _quick(setup), "dask", "--cluster", "local:2")
    _compare(setup, grades, _quick(setup), "batch --cluster local:2")


def test_gradescope_run_gives_the_baseline_grades(setup: Setup) -> None:
    """Gradescope's run_autograder for one submission holding one reference of each exercise, as many
    submissions as an exercise has references; under a container's layers, as PID 1."""
    layer_set = "pid1" if not setup.skipped["pid1"] else "every"
    for course, exercises in setup.courses.items():
        by_exercise: dict[str, list[Reference]] = {}
        for reference in _quick(setup):
            if reference.course == course:
                by_exercise.setdefault(reference.exercise, []).append(reference)
        for number in range(max(len(refs) for refs in by_exercise.values())):
            chosen = {exercise: refs[number] for exercise, refs in by_exercise.items() if number < len(refs)}
            autograder = setup.root / "gradescope" / f"{course}-{number}"
            (autograder / "submission").mkdir(parents=True)
            for exercise, reference in chosen.items():
                shutil.copy(reference.path, autograder / "submission" / f"{exercise}{reference.path.suffix}")
            # The first with an empty cache, as every PrairieLearn or fresh Gradescope job; the rest warm.
            cache = setup.cache(f"gradescope-{course}-{number}", warm=number > 0, layer_set=layer_set)
            done = setup.run(layer_set, ["gradescope-run", "--root", str(autograder), "--exercises", str(exercises)],
                             cache)
            assert done.returncode in (0, 1), done.stderr
            results = json.loads((autograder / "results" / "results.json").read_text())
            for exercise, reference in chosen.items():
                tests = tuple((t["name"].removeprefix(f"{exercise}: "), None, t["score"]) for t in results["tests"]
                              if t["name"].startswith(f"{exercise}: "))
                got = (sum(points for _, _, points in tests), tests)
                want = setup.baseline[(course, reference.student)]
                assert _same(got, want), f"gradescope-run [{layer_set}] {course}/{reference.student}: {got} != {want}"


def test_grader_check_watch_reports_the_baseline_grade_first(setup: Setup) -> None:
    """`--watch` grades once at start, in the process that then waits for saves: that first report."""
    firsts = {(r.course, r.exercise): r for r in reversed(_quick(setup))}  # one reference of each exercise
    cache = setup.cache("watch", warm=True, layer_set="every")
    for reference in firsts.values():
        argv = ["check", "--watch", reference.exercise, str(reference.path), "--exercises",
                str(setup.courses[reference.course]), "--format", "json", "--all"]
        command = setup.command("every", argv)
        assert command is not None
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=setup.env("every", cache), cwd=setup.root / "cwd")
        try:
            text = _until_watching(process.stdout.readline)  # type: ignore[union-attr]
        finally:
            process.kill()
            process.wait()
        got = _from_report(text, "json", reference.exercise)
        assert _same(got, setup.baseline[(reference.course, reference.student)]), (reference, got)


def _until_watching(readline: Callable[[], str]) -> str:
    lines = []
    while True:
        line = readline()
        assert line, "--watch ended before it said it was watching: " + "".join(lines)
        if line.startswith("Watching "):
            return "".join(lines)
        lines.append(line)


def test_validate_confirms_every_references_verdict_folder(setup: Setup) -> None:
    """The basics course here, under a container's layers with an empty cache; the bundled one is validated
    by tests/authoring/test_validate.py (every layer)."""
    layer_set = "container" if not setup.skipped["container"] else "every"
    cache = setup.cache("validate-basics", warm=False, layer_set=layer_set)
    done = setup.run(layer_set, ["validate", "--exercises", str(setup.courses["basics"])], cache, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
