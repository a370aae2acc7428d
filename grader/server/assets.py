"""The files the pages load besides themselves, served from the package: the site's own scripts (work.js, the
page to work in) and the editor it vendors, CodeMirror 5, as npm ships it prebuilt. Only the files its
MANIFEST.json lists are served (its name, version, npm integrity and each file's sha256: a test checks the
files against it). The CSP stays as it is (script-src 'self'): the editor needs no eval and no worker, and
its stylesheet is written into the page (style-src allows inline styles, not a stylesheet from the site)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from grader.records import record
from grader.server.access import ANYONE, route
from grader.server.tokens import Caller
from grader.server.web import not_found

STATIC = Path(__file__).parent / "static"
VENDOR = STATIC / "vendor"
EDITOR_FOLDER = "codemirror-5.65.21"
TYPES = {".js": "text/javascript", ".css": "text/css"}


@record
class Editor:
    """The vendored editor as a page loads it: its scripts in order (the site's own last), its stylesheet."""

    name: str
    version: str
    scripts: tuple[str, ...]

    @property
    def css(self) -> str:
        return _css()


@functools.cache
def _css() -> str:
    return (VENDOR / EDITOR_FOLDER / "lib" / "codemirror.css").read_text(encoding="utf-8")


def manifest(folder: str = EDITOR_FOLDER) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((VENDOR / folder / "MANIFEST.json").read_text(encoding="utf-8"))
    return loaded


def _editor() -> Editor:
    listed = manifest()
    base = f"/static/vendor/{EDITOR_FOLDER}"
    return Editor(str(listed["name"]), str(listed["version"]),
                  (f"{base}/lib/codemirror.js", f"{base}/mode/python/python.js", "/static/work.js"))


EDITOR = _editor()


@functools.cache
def _served(path: str) -> bytes | None:
    """A file's bytes if the site serves it: the site's own scripts, and the manifest's .js and .css files."""
    if path == "work.js":
        return (STATIC / "work.js").read_bytes()
    folder, _, name = path.partition("/")
    if folder != EDITOR_FOLDER or Path(name).suffix not in TYPES:
        return None
    files = manifest(folder)["files"]
    return (VENDOR / folder / name).read_bytes() if isinstance(files, dict) and name in files else None


async def asset(request: Request, caller: Caller | None) -> Response:
    path = request.url.path.removeprefix("/static/").removeprefix("vendor/")
    data = _served(path)
    if data is None:
        return not_found(request, "No such file.")
    # A vendored file's path names its version: it never changes under its name.
    seconds = 3600 if path == "work.js" else 86400 * 30
    return Response(data, media_type=TYPES[Path(path).suffix], headers={
        "X-Content-Type-Options": "nosniff", "Cache-Control": f"max-age={seconds}"})


def asset_routes() -> list[BaseRoute]:
    return [route("/static/work.js", asset, ["GET"], ANYONE, answer="page"),
            route("/static/vendor/{path:path}", asset, ["GET"], ANYONE, answer="page")]
