"""A quality section as every output says it: the JSON section (the contract other tools read), and the
sentences the terminal, the HTML pages, JUnit and the server put around it. One wording, here."""

from __future__ import annotations

from typing import Any

from grader.quality.data import CategoryResult, Issue, Mode, QualityResult
from grader.text import escape_controls, points
from grader.words import count


def quality_json(quality: QualityResult) -> dict[str, object]:
    """The report's `quality` section: fields only ever added, as the rest of the report."""
    return {
        "tool": quality.tool,
        "deduction": quality.deduction,
        "capped": quality.capped,
        "not_checked": quality.not_checked,
        "note": quality.note,
        "categories": [{"name": c.name, "mode": str(c.mode), "counted": c.counted, "deduction": c.deduction,
                        "capped": c.capped} for c in quality.categories],
        "issues": [{"code": i.code, "message": i.message, "line": i.line, "column": i.column,
                    "category": i.category, "text": i.text, "in_starter": i.in_starter, "url": i.url}
                   for i in quality.issues],
        "unlisted": quality.unlisted,
    }


def headline(quality: QualityResult) -> str:
    """'Code quality (ruff 0.17.5): 1.35 points off, capped for the exercise'."""
    if quality.not_checked:
        taken = f"; {points(quality.deduction)} points off, the most it takes" if quality.deduction else ""
        return f"Code quality ({quality.tool}): not checked: {quality.not_checked}{taken}"
    if not quality.deduction:
        found = sum(1 for i in quality.issues if not i.in_starter) + quality.unlisted
        if not found:
            return f"Code quality ({quality.tool}): no issues"
        return f"Code quality ({quality.tool}): {count(found, 'issue')} to look at, no points off"
    capped = ", capped for the exercise" if quality.capped else ""
    return f"Code quality ({quality.tool}): {points(quality.deduction)} points off{capped}"


def category_line(part: CategoryResult) -> str:
    """'naming (graded): 2 issues, 1 point off (capped)'; 'style (feedback): 1 issue, shown only'."""
    if part.mode is not Mode.GRADED:
        return f"{part.name} ({part.mode}): {count(part.counted, 'issue')}, shown only"
    off = f"{points(part.deduction)} point{'s' if part.deduction != 1 else ''} off"
    return f"{part.name} (graded): {count(part.counted, 'issue')}, {off}" + (" (capped)" if part.capped else "")


def issue_line(issue: Issue) -> str:
    """'line 4:5 N803 Argument name `N` should be lowercase [naming]': the student's text made inert."""
    starter = " (in the starter code too: not counted)" if issue.in_starter else ""
    return escape_controls(f"line {issue.line}:{issue.column} {issue.code} {issue.message} [{issue.category}]{starter}")


def review_comment(issue: Issue) -> str:
    """A line comment a reviewer is offered for an issue the student introduced."""
    return escape_controls(f"{issue.code}: {issue.message} ({issue.category})")


def unlisted_line(quality: QualityResult) -> str:
    return f"... and {count(quality.unlisted, 'more issue')}, counted above" if quality.unlisted else ""


def quality_from_json(data: dict[str, Any]) -> QualityResult:
    """The section read back as quality_json wrote it (its keys are the records' fields)."""
    parts = tuple(CategoryResult(**{**c, "mode": Mode(c["mode"])}) for c in data["categories"])
    issues = tuple(Issue(**issue) for issue in data["issues"])
    return QualityResult(**{**data, "categories": parts, "issues": issues})


def quality_of(given: QualityResult | dict[str, Any]) -> QualityResult:
    """The section as a record, whether a page has the report itself or its JSON view (the server's)."""
    return quality_from_json(given) if isinstance(given, dict) else given


def offered_comments(given: QualityResult | dict[str, Any] | None, lines: int,
                     most: int) -> list[dict[str, object]]:
    """Line comments a reviewer is offered (the review form prefilled, theirs to edit or clear): one per
    issue the student introduced, on a line of the code the review counts."""
    if not given:
        return []
    quality = quality_of(given)
    return [{"line": i.line, "text": review_comment(i)} for i in quality.issues
            if not i.in_starter and 0 < i.line <= lines][:most]
