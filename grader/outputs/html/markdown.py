"""An exercise's statement (and hints) as HTML: the one Markdown renderer of the pages. markdown-it-py, the
parser rich renders the same text with in `grader show`, with its CommonMark rules and rich's two extensions
(tables, strikethrough), so a page and a terminal read one source alike. Raw HTML in the text is escaped,
never passed through (html=False); links markdown-it judges unsafe (javascript:, vbscript:, file:, most
data:) are left as text; what nests deeper than MAX_NESTING is cut."""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt
from markupsafe import Markup

MAX_NESTING = 20  # lists in quotes in lists...: deeper is cut, a page never recurses further


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "maxNesting": MAX_NESTING}).enable(["table", "strikethrough"])


def markdown_html(text: str) -> Markup:
    """`text` rendered as safe HTML, for a template to place as it is."""
    return Markup(_parser().render(text))  # noqa: S704 - markdown-it escapes every text and refuses raw HTML
