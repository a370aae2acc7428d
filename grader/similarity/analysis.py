"""A class's similarity: for each exercise, every pair of handed-in files scored, and the groups of
students whose files are alike above a threshold."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.batch.discover import ClassFolder
from grader.kinds import kind_of
from grader.model import Exercise
from grader.records import record
from grader.similarity.compare import Document, Pair, all_pairs, boilerplate_hashes, document

THRESHOLD = 0.5  # a pair at or above it joins a group; below it, it is only listed
MAX_BYTES = 1_000_000  # a bigger "solution" is not source code a person wrote: it is skipped, and said so


@record
class Group:
    """Students whose files are linked by pairs at or above the threshold (a connected component)."""

    exercise: str
    students: tuple[str, ...]
    top_score: float


@dataclass
class Similarity:
    threshold: float
    exercises: list[str]
    pairs: list[Pair]  # every exercise's, highest score first
    groups: list[Group]
    skipped: list[str] = field(default_factory=list)  # student/file: why it was not compared
    # params: (exercise, student, classmate) where the student's hand-in fails their own variant and solves the
    # classmate's (grader.variants.detect): the copy a similarity score cannot see when the code was edited
    wrong_variants: list[tuple[str, str, str]] = field(default_factory=list)

    def json(self) -> dict[str, object]:
        return {"pairs": [{"a": p.a.student, "b": p.b.student, "exercise": p.exercise, "score": round(p.score, 3)}
                          for p in self.pairs if p.score > 0],
                "groups": [{"exercise": g.exercise, "students": list(g.students), "top_score": round(g.top_score, 3)}
                           for g in self.groups],
                "threshold": self.threshold,
                **({"wrong_variants": [{"exercise": e, "student": s, "solves_variant_of": c}
                                       for e, s, c in self.wrong_variants]} if self.wrong_variants else {})}


def comparable(exercises: list[Exercise]) -> list[Exercise]:
    """A predict exercise's answers are program outputs, meant to be the same: nothing to compare."""
    return [e for e in exercises if kind_of(e.kind).runs_code]  # a prediction is typed lines, not code


def analyse(folder: ClassFolder, exercises: list[Exercise], threshold: float = THRESHOLD) -> Similarity:
    pairs: list[Pair] = []
    skipped: list[str] = []
    for exercise in comparable(exercises):
        boilerplate = boilerplate_hashes([exercise.starter, *_references(exercise)])
        documents = []
        for student in folder.students:
            found = folder.found.get((student, exercise.id))
            if found is None or found.path is None:
                continue
            if found.refused:
                skipped.append(f"{found.label}: {found.refused}")
                continue
            source, problem = _read(found.path)
            if problem:
                skipped.append(f"{found.label}: {problem}")
                continue
            documents.append(document(student, found.path.name, source, boilerplate))
        pairs += all_pairs(exercise.id, documents)
    pairs.sort(key=lambda p: (-p.score, p.exercise, p.a.student, p.b.student))
    return Similarity(threshold, [e.id for e in comparable(exercises)], pairs, groups(pairs, threshold), skipped)


def groups(pairs: list[Pair], threshold: float) -> list[Group]:
    """Connected components of the pairs at or above the threshold, per exercise; the closest first."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(node: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    close = [p for p in pairs if p.score >= threshold]
    for pair in close:
        parent[root((pair.exercise, pair.a.student))] = root((pair.exercise, pair.b.student))
    members: dict[tuple[str, str], set[str]] = {}
    tops: dict[tuple[str, str], float] = {}
    for pair in close:
        top = root((pair.exercise, pair.a.student))
        members.setdefault(top, set()).update((pair.a.student, pair.b.student))
        tops[top] = max(tops.get(top, 0.0), pair.score)
    found = [Group(top[0], tuple(sorted(names)), tops[top]) for top, names in members.items()]
    return sorted(found, key=lambda g: (-g.top_score, g.exercise, g.students))


def _references(exercise: Exercise) -> list[str]:
    sources = []
    for path in sorted(exercise.reference_dir.rglob("*.py")) if exercise.reference_dir.is_dir() else []:
        source, problem = _read(path)
        if not problem:
            sources.append(source)
    return sources


def _read(path: Path) -> tuple[str, str]:
    """The file's text (undecodable bytes replaced), or why it is not read."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        return "", f"cannot read the file: {error.strerror}"
    if len(data) > MAX_BYTES:
        return "", f"over {MAX_BYTES // 1000} kB: not compared"
    return data.decode("utf-8", "replace"), ""
