"""The systems the platforms run on, as Docker images built here from the distributions' own archives with
debootstrap (no registry image): Ubuntu 22.04 (Gradescope's default base image, GitHub's ubuntu-22.04 runner)
and Debian 12. An image's tag is a digest of what went into it, so a rerun finds it built."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = "grader-test"


@dataclass(frozen=True)
class System:
    name: str  # the image's name: ubuntu-22.04
    suite: str  # debootstrap's: jammy
    mirror: str
    components: str
    keyring: str | None  # None: the archive's key is not packaged on this host (Ubuntu's, on Debian)
    packages: tuple[str, ...]  # what the platform's own base image has beyond minbase

    def recipe(self) -> str:
        return repr(self)


# What Gradescope's base image holds that minbase lacks: python3, unzip, dos2unix, curl, certificates.
BASE_PACKAGES = ("python3", "ca-certificates", "curl", "unzip", "dos2unix")
UBUNTU_22_04 = System("ubuntu-22.04", "jammy", "http://archive.ubuntu.com/ubuntu", "main,universe", None,
                      BASE_PACKAGES)
DEBIAN_12 = System("debian-12", "bookworm", "http://deb.debian.org/debian", "main",
                   "/usr/share/keyrings/debian-archive-keyring.gpg", BASE_PACKAGES)


def digest(*parts: bytes | str) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode() if isinstance(part, str) else part)
        hasher.update(b"\0")
    return hasher.hexdigest()[:16]


def image_exists(tag: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode == 0


def base_image(system: System) -> tuple[str, float]:
    """The system's image, built with debootstrap when no image has this recipe; returns (tag, seconds spent)."""
    tag = f"{REPOSITORY}/{system.name}:{digest(system.recipe())}"
    if image_exists(tag):
        return with_host_cas(tag), 0.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"grader-{system.name}-", dir="/var/tmp") as work:
        rootfs = Path(work) / "rootfs"
        command = ["debootstrap", "--variant=minbase", f"--components={system.components}",
                   f"--include={','.join(system.packages)}"]
        # Debian packages no Ubuntu keyring: the release files of a test image go unchecked.
        command += [f"--keyring={system.keyring}"] if system.keyring else ["--no-check-gpg"]
        subprocess.run([*command, system.suite, str(rootfs), system.mirror], check=True, capture_output=True)
        components = system.components.replace(",", " ")
        (rootfs / "etc/apt/sources.list").write_text(
            f"deb {system.mirror} {system.suite} {components}\n"
            f"deb {system.mirror} {system.suite}-updates {components}\n")
        shutil.rmtree(rootfs / "var/cache/apt/archives", ignore_errors=True)
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        subprocess.run(["docker", "import", "-", tag], stdin=tar.stdout, check=True, capture_output=True)
        assert tar.wait() == 0
    return with_host_cas(tag), time.monotonic() - started


HOST_CAS = Path("/usr/local/share/ca-certificates")


def with_host_cas(tag: str) -> str:
    """The image trusting the certificate authorities this host added (a TLS-inspecting egress proxy), so that
    apt, pip and npm in it reach the registries as the host does; the image itself when there are none."""
    cas = sorted(HOST_CAS.glob("*.crt")) if HOST_CAS.is_dir() else []
    if not cas:
        return tag
    derived = f"{tag}-cas-{digest(tag, *(ca.read_bytes() for ca in cas))}"
    with tempfile.TemporaryDirectory() as context:
        for ca in cas:
            shutil.copyfile(ca, Path(context) / ca.name)
        (Path(context) / "Dockerfile").write_text(
            f"FROM {tag}\nCOPY *.crt /usr/local/share/ca-certificates/\nRUN update-ca-certificates\n"
            "ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt\n")
        build(derived, Path(context))
    return derived


def build(tag: str, context: Path) -> float:
    """`docker build` of context (a Dockerfile in it) as tag, unless built; returns seconds spent."""
    if image_exists(tag):
        return 0.0
    started = time.monotonic()
    done = subprocess.run(["docker", "build", "-q", "-t", tag, str(context)], capture_output=True, text=True,
                          env={**os.environ, "DOCKER_BUILDKIT": "0"})
    if done.returncode != 0:
        raise AssertionError(f"docker build of {tag} failed:\n{done.stdout}\n{done.stderr}")
    return time.monotonic() - started


if __name__ == "__main__":  # build the base images ahead of a test run
    for system in (UBUNTU_22_04, DEBIAN_12):
        print(*base_image(system))
