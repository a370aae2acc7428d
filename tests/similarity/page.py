"""The parts of a similarity page the tests read: table rows as cell texts, code lines per side, all text."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path


class Page(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, list[list[str]]] = {}  # table id -> rows
        self.sides: list[list[tuple[str, str | None]]] = []  # per side: (line text, region or None)
        self.links: list[str] = []
        self.text: list[str] = []
        self._table = ""
        self._cell: list[str] | None = None
        self._line: list[str] | None = None
        self._region: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "table":
            self._table = attributes.get("id") or ""
            self.rows[self._table] = []
        elif tag == "tr":
            self.rows[self._table].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "section" and "side" in (attributes.get("class") or ""):
            self.sides.append([])
        elif tag == "div" and self.sides and self._line is None and "code" not in (attributes.get("class") or ""):
            self._line, self._region = [], attributes.get("data-region")
        elif tag == "a":
            self.links.append(attributes.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "div" and self._line is not None:
            self.sides[-1].append(("".join(self._line), self._region))
            self._line = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._line is not None:
            self._line.append(data)

    @property
    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())


def page(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))
