"""An exercise's statement on a page is Markdown rendered by one renderer (outputs/html/markdown.py): code,
emphasis and fences as HTML, and nothing a statement writes (raw HTML, a javascript: link, deep nesting)
runs or breaks the page."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from grader.outputs.html.markdown import MAX_NESTING, markdown_html


def test_backticks_emphasis_and_fences_are_rendered() -> None:
    shown = markdown_html("Return `a + b`, **twice**.\n\n```python\nprint(1 < 2)\n```\n\n- one\n- two\n")
    assert "<code>a + b</code>" in shown and "<strong>twice</strong>" in shown
    assert '<pre><code class="language-python">print(1 &lt; 2)\n</code></pre>' in shown
    assert "<li>one</li>" in shown and "`" not in shown and "**" not in shown


@pytest.mark.parametrize("hostile", [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "<javascript:alert(1)>",
    "![x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](vbscript:msgbox(1))",
    '[x](https://example.org "a\\" onmouseover=\\"alert(1)")',
], ids=["script", "img-onerror", "javascript-link", "mixed-case", "autolink", "data-url", "vbscript", "title"])
def test_nothing_a_statement_writes_becomes_markup_that_runs(hostile: str) -> None:
    tags: list[tuple[str, list[tuple[str, str | None]]]] = []
    parser = HTMLParser()
    parser.handle_starttag = lambda tag, attrs: tags.append((tag, attrs))  # type: ignore[method-assign]
    parser.feed(str(markdown_html(hostile)))
    assert {tag for tag, _ in tags} <= {"p", "a", "img", "code"}, tags
    for _, attributes in tags:
        assert {name for name, _ in attributes} <= {"href", "src", "alt", "title"}, tags  # no event handler
        links = [value or "" for name, value in attributes if name in ("href", "src")]
        assert not any(re.match(r"\s*(javascript|vbscript|data:text|x$)", link, re.I) for link in links), tags


def test_deep_nesting_and_a_long_statement_render_without_failing() -> None:
    for text in ("> " * 5_000 + "deep", "- " * 5_000 + "item", "*" * 5_000 + "a" + "*" * 5_000,
                 "[" * 5_000 + "x" + "]" * 5_000):
        shown = markdown_html(text)
        assert shown.count("<blockquote>") <= MAX_NESTING and shown.count("<ul>") <= MAX_NESTING
