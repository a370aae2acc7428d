"""A wheel of the grader as it is installed here, for a bundle to install without the package index
knowing the grader: the package folder as it is, and the installed distribution's own metadata."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from importlib import metadata
from pathlib import Path

import grader
from grader.errors import UsageError
from grader.version import DISTRIBUTION

SKIPPED = {"__pycache__"}
KEPT_EXTRAS = {"data"}


def build_wheel(folder: Path) -> Path:
    """Write NAME-VERSION-py3-none-any.whl into `folder`; returns its path."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        from grader.install_hint import install_hint

        raise UsageError(f"the grader is not installed as {DISTRIBUTION!r}, so there is nothing to bundle: "
                         f"{install_hint()}") from None
    name, version = DISTRIBUTION.replace("-", "_"), dist.version
    info = f"{name}-{version}.dist-info"
    package = Path(grader.__file__).resolve().parent
    files = {f"grader/{path.relative_to(package).as_posix()}": path.read_bytes()
             for path in sorted(package.rglob("*"))
             if path.is_file() and not SKIPPED & set(path.relative_to(package).parts) and path.suffix != ".pyc"}
    # Extras stay out (test, dask, server...) but `data`: a bundle of a course with an environment installs
    # it, for the grader's own numpy and pandas that compare arrays and frames.
    requires = [r for r in dist.requires or () if "extra ==" not in r or _extra(r) in KEPT_EXTRAS]
    fields = [("Metadata-Version", "2.1"), ("Name", DISTRIBUTION), ("Version", version),
              ("Summary", dist.metadata.get("Summary", "")),
              ("Requires-Python", dist.metadata.get("Requires-Python", ">=3.10"))]
    fields += [("Provides-Extra", extra) for extra in sorted(KEPT_EXTRAS)]
    fields += [("Requires-Dist", requirement) for requirement in requires]
    files[f"{info}/METADATA"] = "".join(f"{key}: {value}\n" for key, value in fields).encode()
    files[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: grader export --gradescope\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    scripts = [ep for ep in dist.entry_points if ep.group == "console_scripts"]
    files[f"{info}/entry_points.txt"] = ("[console_scripts]\n" + "".join(
        f"{ep.name} = {ep.value}\n" for ep in scripts)).encode()
    record = "".join(f"{path},sha256={_digest(data)},{len(data)}\n" for path, data in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))  # the same bytes for the same source
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return wheel


def _extra(requirement: str) -> str:
    """The extra a Requires-Dist line belongs to (`... ; extra == "data"`), or ""."""
    marker = requirement.partition(";")[2]
    return marker.partition("extra ==")[2].strip().strip("'\"") if "extra ==" in marker else ""


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
