"""A hand-in's code quality under its spec: ruff's findings put in the categories, the starter's own issues
set aside, each graded category's deduction capped, then the exercise's cap. Pure but for running ruff,
which comes in as a parameter (tests hand in a fake)."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable

from grader.quality.data import Category, CategoryResult, Issue, Mode, QualityResult, QualitySpec
from grader.quality.ruff import Findings, ruff_version, run_ruff

LISTED_MOST = 200  # issues a report lists; every one found is counted in its category
TEXT_MOST = 200  # characters of a line's code kept beside its issue

Run = Callable[[str, tuple[str, ...], tuple[str, ...]], Findings]


def selection(spec: QualitySpec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The rules ruff is asked for (every category that is not off) and those it skips (the off ones)."""
    chosen = tuple(r for c in spec.categories if c.mode is not Mode.OFF for r in c.rules)
    skipped = tuple(r for c in spec.categories if c.mode is Mode.OFF for r in c.rules)
    return chosen, skipped


def category_of(spec: QualitySpec, code: str) -> Category | None:
    """The category whose rule matches `code` most closely (N8 before N), as ruff resolves its own."""
    matches = [(len(rule), category) for category in spec.categories for rule in category.rules
               if code.startswith(rule)]
    return max(matches, key=lambda m: m[0])[1] if matches else None


def normalized(line: str) -> str:
    """A line's code as the starter and the hand-in are matched: its words, whatever its place or spacing."""
    return " ".join(line.split())


def check_quality(spec: QualitySpec, source: str, starter: str, max_score: float,
                  run: Run = run_ruff) -> QualityResult:
    """What `spec` finds in `source` and takes off (`max_score`: the exercise's points, for a cap in %)."""
    chosen, skipped = selection(spec)
    tool = ruff_version()
    if not chosen:
        return QualityResult(tool)
    found = run(source, chosen, skipped)
    if found.failure:
        # A file that stops ruff (too large, too slow, its parser's stack) takes the most the spec allows:
        # else padding a file would be a way out of every deduction.
        most = 0.0 if found.grader_fault else _most(spec, max_score)
        return QualityResult(tool, deduction=most, capped=bool(most), not_checked=found.failure)
    baseline = _baseline(starter, chosen, skipped, run) if starter.strip() else Counter()
    lines = source.splitlines()
    issues: list[Issue] = []
    for finding in sorted(found.found, key=lambda f: (f.line, f.column, f.code)):
        category = category_of(spec, finding.code)
        if category is None or category.mode is Mode.OFF:
            continue
        text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        key = (finding.code, normalized(text))
        in_starter = baseline[key] > 0
        baseline[key] -= in_starter  # each of the starter's issues excuses one of the hand-in's
        issues.append(Issue(finding.code, finding.message, finding.line, finding.column, category.name,
                            text.strip()[:TEXT_MOST], in_starter, finding.url))
    parts = tuple(_part(category, issues) for category in spec.categories if category.mode is not Mode.OFF)
    total = round(sum(part.deduction for part in parts), 6)
    most = _exercise_cap(spec, max_score)
    note = "ruff's findings passed the limit read back: those read are counted" if found.cut else ""
    return QualityResult(tool, tuple(issues[:LISTED_MOST]), parts, min(total, most), total > most, note=note,
                         unlisted=max(len(issues) - LISTED_MOST, 0))


def _part(category: Category, issues: list[Issue]) -> CategoryResult:
    counted = sum(1 for issue in issues if issue.category == category.name and not issue.in_starter)
    if category.mode is not Mode.GRADED:
        return CategoryResult(category.name, category.mode, counted, 0.0)
    taken = round(counted * category.penalty, 6)
    cap = category.cap if category.cap is not None else float("inf")
    return CategoryResult(category.name, category.mode, counted, min(taken, cap), taken > cap)


def _most(spec: QualitySpec, max_score: float) -> float:
    """The most the spec can take: the exercise's cap, or the graded categories' caps added up (0 when
    neither bounds it)."""
    caps = sum(c.cap if c.cap is not None else float("inf") for c in spec.categories if c.mode is Mode.GRADED)
    most = min(caps, _exercise_cap(spec, max_score))
    return most if most != float("inf") else 0.0


def _exercise_cap(spec: QualitySpec, max_score: float) -> float:
    caps = [spec.cap] if spec.cap is not None else []
    if spec.cap_percent is not None:
        caps.append(round(max_score * spec.cap_percent / 100, 6))
    return min(caps, default=float("inf"))


def _baseline(starter: str, chosen: tuple[str, ...], skipped: tuple[str, ...], run: Run) -> Counter[tuple[str, str]]:
    """The starter's issues by rule and line's code: what a hand-in keeps of the starter costs nothing."""
    found = _starter_findings(starter, chosen, skipped) if run is run_ruff else run(starter, chosen, skipped)
    lines = starter.splitlines()
    return Counter((f.code, normalized(lines[f.line - 1] if 0 < f.line <= len(lines) else "")) for f in found.found)


@functools.lru_cache(maxsize=64)
def _starter_findings(starter: str, chosen: tuple[str, ...], skipped: tuple[str, ...]) -> Findings:
    return run_ruff(starter, chosen, skipped)  # the same for every hand-in of the exercise: once per process
