"""A course's exams: `exams/ID.yaml` beside its exercises folder, read with the spec loader's reader, so a
mistake is reported as a spec's is (file:line:col, the key, the nearest known key):

    title: Midterm
    exercises: [count-queens, any-queens]
    opens: 2026-12-10T09:00:00Z
    closes: 2026-12-10T12:00:00Z
    duration: 60               # minutes, from the student's first opening
    time_factor: 1             # accommodations: a student's own under students:
    feedback: visible          # while it runs: visible (the visible tests) or none (nothing until results_at)
    results_at: 2026-12-11T09:00:00Z
    addresses: [10.1.0.0/16]   # optional: the rooms' networks
    students:
      alice: {time_factor: 1.5}
      bob: {opens: 2026-12-11T09:00:00Z, closes: 2026-12-11T12:00:00Z}

`ExamBook` reads the folder again whenever a file in it changed (the server never needs a restart)."""

from __future__ import annotations

import datetime as dt
import difflib
import ipaddress
import threading
from pathlib import Path
from typing import Literal

import yaml

from grader.errors import SpecProblem
from grader.server.exams import FEEDBACK, Exam, Network, Own, feedback_now
from grader.spec import ID_PATTERN, LOADER, Reader

EXAM_KEYS = ("title", "exercises", "opens", "closes", "duration", "time_factor", "feedback", "results_at",
             "addresses", "students")
OWN_KEYS = ("opens", "closes", "duration", "time_factor")
MOST_MINUTES = 7 * 24 * 60  # a week: longer is a typo (seconds written as minutes)
MOST_FACTOR = 10.0
EXAMS_FOLDER = "exams"


def load_exam(path: Path, known: list[str]) -> tuple[Exam | None, list[SpecProblem]]:
    """One exam file: the exam, or None and every problem found in it. `known`: the course's exercises."""
    reader = Reader(path)
    try:
        text = path.read_text(encoding="utf-8")
        root = yaml.compose(text, Loader=LOADER)
    except UnicodeDecodeError as error:
        return None, [SpecProblem(path, 1, 1, f"the file is not UTF-8 text ({error.reason})")]
    except yaml.MarkedYAMLError as error:
        from grader.yaml_syntax import syntax_problem

        return None, [syntax_problem(path, text, error)]
    except (OSError, yaml.YAMLError) as error:
        return None, [SpecProblem(path, 1, 1, f"cannot read the exam: {error}")]
    if not ID_PATTERN.match(path.stem):
        return None, [SpecProblem(path, 1, 1, f"an exam's file is named after its id: lowercase letters, digits "
                                              f"and single hyphens, such as midterm-1.yaml, not {path.name!r}")]
    if root is None:
        return None, [SpecProblem(path, 1, 1, "the file is empty; an exam needs exercises, opens, closes and duration")]
    keys = reader.mapping(root, EXAM_KEYS, "the exam")
    for needed in ("exercises", "opens", "closes", "duration"):
        if needed not in keys and isinstance(root, yaml.MappingNode):
            reader.problem(root, f"the exam has no '{needed}'; an exam needs exercises, opens, closes and duration")
    exercises = _exercises(reader, keys.get("exercises"), known)
    opens, closes = _time(reader, keys.get("opens"), "opens"), _time(reader, keys.get("closes"), "closes")
    if opens is not None and closes is not None and closes <= opens:
        reader.problem(keys["closes"], "closes must come after opens")
    duration = _number(reader, keys.get("duration"), "duration", "minutes, more than 0", MOST_MINUTES)
    factor = _number(reader, keys.get("time_factor"), "time_factor", "a multiple of the duration, such as 1.5",
                     MOST_FACTOR)
    feedback = reader.text(keys.get("feedback"), "feedback", "visible")
    if feedback not in FEEDBACK:
        reader.problem(keys["feedback"], f"feedback is one of {', '.join(FEEDBACK)}, not {feedback!r}")
    results = _time(reader, keys.get("results_at"), "results_at")
    addresses = _addresses(reader, keys.get("addresses"))
    students = _students(reader, keys.get("students"))
    if reader.problems or opens is None or closes is None or duration is None:
        return None, sorted(reader.problems, key=lambda p: (p.line, p.column))
    return Exam(path.stem, reader.text(keys.get("title"), "title", path.stem), exercises, opens, closes,
                duration * 60, factor if factor is not None else 1.0, feedback,  # type: ignore[arg-type]
                results, addresses, students, path), []


def _exercises(reader: Reader, node: yaml.Node | None, known: list[str]) -> tuple[str, ...]:
    if node is None:
        return ()
    ids = reader.text_list(node, "exercises")
    if isinstance(node, yaml.SequenceNode) and not node.value:
        reader.problem(node, "exercises lists the exam's exercises by id: at least one")
    seen: set[str] = set()
    for item, wanted in zip(node.value if isinstance(node, yaml.SequenceNode) else [], ids):
        if wanted and wanted not in known:
            close = difflib.get_close_matches(wanted, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            reader.problem(item, f"no exercise '{wanted}' in the course's exercises folder{hint}")
        elif wanted in seen:
            reader.problem(item, f"the exercise '{wanted}' is listed twice")
        seen.add(wanted)
    return ids


def _time(reader: Reader, node: yaml.Node | None, key: str) -> float | None:
    if node is None:
        return None
    value = reader.value(node) if isinstance(node, yaml.ScalarNode) else None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            value = None
    if not isinstance(value, dt.datetime):
        reader.problem(node, f"{key} must be a date and time such as 2026-12-10T09:00:00Z, not {_shown(node)}")
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)  # YAML's timestamps without a zone are UTC
    return value.timestamp()


def _number(reader: Reader, node: yaml.Node | None, key: str, what: str, most: float) -> float | None:
    if node is None:
        return None
    value = reader.value(node) if isinstance(node, yaml.ScalarNode) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= most:
        reader.problem(node, f"{key} must be a number of {what}, at most {most:g}, not {_shown(node)}")
        return None
    return float(value)


def _addresses(reader: Reader, node: yaml.Node | None) -> tuple[Network, ...]:
    found: list[Network] = []
    for item, text in zip(node.value if isinstance(node, yaml.SequenceNode) else [],
                          reader.text_list(node, "addresses")):
        try:
            found.append(ipaddress.ip_network(text.strip(), strict=True))
        except ValueError as error:
            hint = ""
            if "host bits set" in str(error):
                hint = f" (did you mean {ipaddress.ip_network(text.strip(), strict=False)}?)"
            reader.problem(item, f"addresses: {text[:80]!r} is not a network such as 10.1.0.0/16 or "
                                 f"2001:db8::/32{hint}")
    return tuple(found)


def _students(reader: Reader, node: yaml.Node | None) -> dict[str, Own]:
    if node is None:
        return {}
    if not isinstance(node, yaml.MappingNode):
        reader.problem(node, "students must be a mapping of students to their own terms")
        return {}
    found = {}
    for name_node, own_node in node.value:
        name = str(name_node.value).strip()
        if not isinstance(name_node, yaml.ScalarNode) or not name or any(ord(c) < 32 for c in name):
            reader.problem(name_node, "a student under students is named as the server knows them: printable text")
            continue
        own = reader.mapping(own_node, OWN_KEYS, f"students.{name}")
        duration = _number(reader, own.get("duration"), f"students.{name}.duration", "minutes, more than 0",
                           MOST_MINUTES)
        found[name] = Own(_time(reader, own.get("opens"), f"students.{name}.opens"),
                          _time(reader, own.get("closes"), f"students.{name}.closes"),
                          duration * 60 if duration is not None else None,
                          _number(reader, own.get("time_factor"), f"students.{name}.time_factor",
                                  "a multiple of the duration", MOST_FACTOR))
        terms = found[name]
        if terms.opens is not None and terms.closes is not None and terms.closes <= terms.opens:
            reader.problem(own["closes"], f"students.{name}.closes must come after their opens")
    return found


def _shown(node: yaml.Node) -> str:
    return repr(str(node.value)[:60]) if isinstance(node, yaml.ScalarNode) else f"a {node.id}"


class ExamBook:
    """The course's exams, read again when a file of the folder changed; the problems of broken files."""

    def __init__(self, folder: Path | None = None, exercises_dir: Path | None = None) -> None:
        self.folder, self.exercises_dir = folder, exercises_dir
        self._lock = threading.Lock()
        self._seen: tuple[object, ...] | None = None
        self._exams: dict[str, Exam] = {}
        self._problems: list[SpecProblem] = []

    def _signature(self) -> tuple[object, ...]:
        if self.folder is None or not self.folder.is_dir():
            return ()
        files = []
        for path in sorted(self.folder.glob("*.yaml")):
            try:
                stat = path.stat()
            except OSError:
                continue
            files.append((path.name, stat.st_mtime_ns, stat.st_size))
        known = sorted(p.name for p in self.exercises_dir.glob("*.yaml")) if self.exercises_dir else []
        return tuple(files), tuple(known)

    def _read(self) -> tuple[dict[str, Exam], list[SpecProblem]]:
        signature = self._signature()
        with self._lock:
            if signature != self._seen:
                self._exams, self._problems = read_exams(self.folder, self.exercises_dir, self._exams) \
                    if signature else ({}, [])
                self._seen = signature
            return self._exams, self._problems

    def exams(self) -> dict[str, Exam]:
        return self._read()[0]

    def problems(self) -> list[SpecProblem]:
        return self._read()[1]

    def of_exercise(self, exercise: str) -> Exam | None:
        return next((exam for exam in self.exams().values() if exercise in exam.exercises), None)

    def feedback_for(self, exercise: str, now: float) -> Literal["all", "visible", "none"]:
        """What a student may see of a report of this exercise now (exams.feedback_now); "all" outside exams."""
        exam = self.of_exercise(exercise)
        return "all" if exam is None else feedback_now(exam, now)


def read_exams(folder: Path | None, exercises_dir: Path | None,
               before: dict[str, Exam] | None = None) -> tuple[dict[str, Exam], list[SpecProblem]]:
    """Every exam of the folder that reads, and the problems of the others. An exercise is in one exam at most:
    which exam's rules would a save of it follow? `before`: the exams as last read; a file broken since (an
    edit with a typo, while the exam runs) keeps its last good version, so its rules never lapse."""
    known = sorted(p.stem for p in exercises_dir.glob("*.yaml")) if exercises_dir else []
    exams: dict[str, Exam] = {}
    problems: list[SpecProblem] = []
    owner: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")) if folder is not None else []:
        exam, found = load_exam(path, known)
        problems += found
        if exam is None and before and path.stem in before:
            exam = before[path.stem]
            problems.append(SpecProblem(path, 1, 1, "the exam as it was last read is given until this file is fixed"))
        if exam is None:
            continue
        taken = [e for e in exam.exercises if e in owner]
        if taken:
            problems.append(SpecProblem(path, 1, 1, f"the exercise '{taken[0]}' is in the exam '{owner[taken[0]]}' "
                                                    "too: an exercise belongs to one exam at most"))
            continue
        owner |= {e: exam.id for e in exam.exercises}
        exams[exam.id] = exam
    return exams, problems



def check_exams(exercises_dir: Path) -> None:
    """`grader validate`: the exams/ beside the exercises, read as `grader serve` reads them; SpecError names
    each problem's file, line and key."""
    from grader.errors import SpecError

    _, problems = read_exams(exercises_dir.parent / EXAMS_FOLDER, exercises_dir)
    if problems:
        raise SpecError(problems)
