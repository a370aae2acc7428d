"""axe-core's axe.min.js, fetched as CI can: CI has no network but package registries, and npm's registry has
axe-core. No node needed: the pinned version's tarball is downloaded from registry.npmjs.org, checked against
the `integrity` the registry publishes for it (pinned here, so a changed tarball is refused), and axe.min.js
is kept in a cache outside the repository. Offline with no cache, the tests fail saying so: never a skip."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

VERSION = "4.14.1"
# `dist.integrity` of https://registry.npmjs.org/axe-core/4.14.1
INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
TARBALL = f"https://registry.npmjs.org/axe-core/-/axe-core-{VERSION}.tgz"
MEMBER = "package/axe.min.js"


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "grader-tests" / f"axe-core-{VERSION}"


def integrity_of(data: bytes) -> str:
    """npm's Subresource Integrity string of a tarball: the algorithm, then the base64 digest."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def axe_source() -> str:
    """axe.min.js of the pinned version: from the cache, else from npm's registry (and then cached)."""
    cached = cache_folder() / "axe.min.js"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    try:
        with urllib.request.urlopen(TARBALL, timeout=60) as response:
            data = response.read()
    except (urllib.error.URLError, OSError) as problem:
        raise RuntimeError(
            f"axe-core {VERSION} is not cached at {cached} and npm's registry could not be reached "
            f"({TARBALL}: {problem}). The accessibility tests need it: run them once with access to "
            f"registry.npmjs.org, or put axe.min.js of axe-core {VERSION} at {cached}.") from problem
    if integrity_of(data) != INTEGRITY:
        raise RuntimeError(f"{TARBALL} is not the tarball npm published for axe-core {VERSION}: its sha512 "
                           f"is {integrity_of(data)}, the registry's integrity is {INTEGRITY}")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        member = archive.extractfile(MEMBER)
        if member is None:
            raise RuntimeError(f"{TARBALL} has no {MEMBER}")
        text = member.read().decode("utf-8")
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"axe.min.js.{os.getpid()}.part")  # written whole: a parallel run reads all or nothing
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, cached)
    return text
