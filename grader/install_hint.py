"""How to add an extra (server, postgres, dask, data) to this grader, said from where it was installed: the
grader is not on the package index, so a hint naming a package there would install whoever registers the
name. A checkout is named by its path (`pip install -e 'PATH[server]'`), a wheel by its file."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

from grader.version import DISTRIBUTION

_PACKAGE = Path(__file__).resolve().parent


def install_hint(extra: str = "") -> str:
    """The pip command that adds `extra` to the grader as it is installed here (none: the grader alone)."""
    extra = f"[{extra}]" if extra else ""
    source, editable = _installed_from()
    if source is not None and source.is_dir():
        return f"pip install {'-e ' if editable else ''}'{source}{extra}'"
    if source is not None and source.suffix == ".whl" and source.is_file():
        return f"pip install '{source}{extra}'"
    checkout = _PACKAGE.parent
    if (checkout / "pyproject.toml").is_file():  # run from a checkout, or installed from one
        return f"pip install -e '{checkout}{extra}'"
    return (f"pip install 'PATH{extra}', PATH the grader's checkout or wheel you installed it from "
            f"(the grader is not on the package index)")


def _installed_from() -> tuple[Path | None, bool]:
    """Where pip installed the grader from (its direct_url.json, PEP 610), and whether editable."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        text = distribution(DISTRIBUTION).read_text("direct_url.json")
        data = json.loads(text) if text else {}
    except (PackageNotFoundError, ValueError, OSError):
        return None, False
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not url.startswith("file://"):
        return None, False
    editable = bool(isinstance(data.get("dir_info"), dict) and data["dir_info"].get("editable"))
    return Path(unquote(urlparse(url).path)), editable
