"""Every page the grader draws passes axe-core's WCAG 2.1 A and AA rules in a real Chromium, and none tells
a verdict by its colour alone. The pages are tests/a11y/pages.py's list (one line adds a page)."""

from __future__ import annotations

from typing import Any

import pytest

from grader.model import Verdict
from tests.a11y.conftest import Site, audit, described
from tests.a11y.pages import PAGES, Page, open_page

# What a page may say beside a verdict's colour: the verdict's words; a submission's, review's or request's
# states; a mutant's fate; or a symbol.
WORDS = sorted({str(v).replace("_", " ") for v in Verdict} | {str(v) for v in Verdict} |
               {"failed", "queued", "running", "survived", "equivalent", "killed", "floor", "not handed in",
                "waiting for staff", "answered", "released", "pending", "✓", "✗"})
COLOURED = ".passed, .failed, .skipped, .missing, .pending"


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_the_page_has_no_wcag_2_1_aa_violation(page: Page, site: Site, chrome: Any, axe: str) -> None:
    open_page(site, chrome, page)
    violations = audit(chrome, axe)
    assert not violations, f"{page.name} ({chrome.current_url}):\n{described(violations)}"


def test_the_class_histogram_says_in_words_how_many_students_each_bar_counts(site: Site, chrome: Any) -> None:
    """A drawing's text alternative carries what it shows (WCAG 1.1.1): every bar's range and count."""
    open_page(site, chrome, next(p for p in PAGES if p.where == "batch:html/index.html"))
    label = chrome.execute_script("return document.querySelector('#histogram svg').getAttribute('aria-label')")
    bars = chrome.execute_script(
        "return Array.from(document.querySelectorAll('#histogram rect.bar title')).map(t => t.textContent)")
    assert len(bars) == 10
    for bar in bars:  # "30–40%: 2 students"
        share, count = bar.split(": ")
        assert f"{share}: {count.split()[0]}" in label, (bar, label)
    assert sum(int(bar.split(": ")[1].split()[0]) for bar in bars) == 8


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_no_verdict_is_told_by_colour_alone(page: Page, site: Site, chrome: Any) -> None:
    """Every element coloured for a verdict says it in words or a symbol too (a swatch: its legend's line)."""
    open_page(site, chrome, page)
    silent = chrome.execute_script("""
        const [selector, words] = arguments;
        return Array.from(document.querySelectorAll(selector)).filter(element => {
            const told = element.classList.contains('swatch') ? element.parentElement : element;
            const text = (told.innerText || told.textContent || '').toLowerCase();
            return !words.some(word => text.includes(word));
        }).map(element => element.outerHTML.slice(0, 200));
    """, COLOURED, WORDS)
    assert not silent, f"{page.name}: coloured for a verdict with no word or symbol saying it:\n" + "\n".join(silent)
