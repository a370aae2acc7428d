"""The self-hosted deployment (deploy/), for real: Docker from Debian's packages, the images built on a
Debian 12 base made here with debootstrap, brought up by deploy/up.sh on loopback addresses of its own
(127.0.1.x, host networking: nothing leaves the machine). Through the proxy's TLS only: a student submits
with `grader submit`; a rush with a server and a worker killed in it loses nothing; a backup taken, the
volumes destroyed, the snapshot restored, and the gradebook is the same byte for byte.

Opt-in (root, several minutes the first time): GRADER_DEPLOY_TESTS=1 pytest tests/deploy"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from tests.batch.classroom import write_course
from tests.conftest import run_cli
from tests.server.conftest import ADD, WRONG, multipart

pytestmark = pytest.mark.skipif(os.environ.get("GRADER_DEPLOY_TESTS") != "1",
                                reason="the deployment's test is opt-in: GRADER_DEPLOY_TESTS=1 pytest tests/deploy")
ROOT = Path(__file__).resolve().parents[2]
ADDRESSES = {"PROXY": "127.0.1.10", "DB": "127.0.1.11", "SERVER_1": "127.0.1.12", "SERVER_2": "127.0.1.13",
             "SCHEDULER": "127.0.1.14", "WORKER_1": "127.0.1.15", "WORKER_2": "127.0.1.16"}
PROJECT = "gradertest"


class Deployment:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.url = f"https://{ADDRESSES['PROXY']}:8443"

    @property
    def context(self) -> ssl.SSLContext:
        """Trusting the site's certificate (up.sh makes one), its address named by IP."""
        context = ssl.create_default_context(cafile=str(self.folder / "certs" / "site.crt"))
        context.check_hostname = False
        return context

    def compose(self, *args: str, check: bool = True, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(["docker-compose", *args], cwd=self.folder, capture_output=True, text=True,
                              timeout=timeout, env={**os.environ, "COMPOSE_PROJECT_NAME": PROJECT})
        if check and done.returncode:
            raise AssertionError(f"docker-compose {' '.join(args)}: {done.returncode}\n{done.stdout}\n{done.stderr}")
        return done

    def grader(self, service: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.compose("exec", "-T", service, "grader-entry", "grader", *args, check=check)

    def call(self, method: str, path: str, token: str, body: bytes | None = None,
             content_type: str | None = None) -> tuple[int, bytes]:
        request = urllib.request.Request(self.url + path, data=body, method=method,
                                         headers={"Authorization": f"Bearer {token}"})
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=60) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def redirect(self, path: str) -> tuple[int, str, str]:
        """(status, Location, Set-Cookie) of a GET through the proxy, the redirect not followed (it points
        off this machine)."""
        connection = http.client.HTTPSConnection(ADDRESSES["PROXY"], 8443, context=self.context, timeout=60)
        try:
            connection.request("GET", path)
            answer = connection.getresponse()
            return answer.status, answer.getheader("Location", ""), answer.getheader("Set-Cookie", "")
        finally:
            connection.close()

    def ready(self, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/readyz", context=self.context, timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(1)
        raise AssertionError(f"not ready: {self.compose('ps', check=False).stdout}")

    def healthy(self, service: str, timeout: float = 300) -> None:
        """Until the service's health check passes (docker-compose 1.29 has no `up --wait`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            container = self.compose("ps", "-q", service).stdout.strip()
            state = subprocess.run(["docker", "inspect", "-f", "{{.State.Health.Status}}", container],
                                   capture_output=True, text=True).stdout.strip() if container else ""
            if state == "healthy":
                return
            time.sleep(1)
        raise AssertionError(f"{service} never became healthy: {self.compose('ps', check=False).stdout}")

    def kill(self, service: str) -> None:
        """SIGKILL to the container's main process from the host, as a machine's crash: its restart policy
        brings it back."""
        container = self.compose("ps", "-q", service).stdout.strip()
        pid = subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", container], capture_output=True,
                             text=True, check=True).stdout.strip()
        os.kill(int(pid), 9)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    from tests.containers.images import DEBIAN_12, base_image

    _docker_daemon()
    base, _ = base_image(DEBIAN_12)
    work = tmp_path_factory.mktemp("deploy")
    folder = work / "deploy"
    shutil.copytree(ROOT / "deploy", folder, ignore=shutil.ignore_patterns(".env", "wheels", "secrets", "certs", "backups"))
    write_course(work / "course")
    env = {f"GRADER_{name}_ADDRESS": address for name, address in ADDRESSES.items()}
    env.update(GRADER_SITE="localhost", GRADER_PROXY_PORT="8443", GRADER_DB_PORT="5432",
               GRADER_COURSE=str(work / "course"), GRADER_BACKUPS=str(work / "backups"),
               GRADER_IMAGE_TAG="test", GRADER_BASE_IMAGE=base, GRADER_SOURCE=str(ROOT))
    (folder / ".env").write_text("".join(f"{key}={value}\n" for key, value in env.items()))
    made = Deployment(folder)
    try:
        up = subprocess.run(["sh", "up.sh"], cwd=folder, capture_output=True, text=True, timeout=3600,
                            env={**os.environ, "COMPOSE_PROJECT_NAME": PROJECT, "PYTHON": sys.executable})
        assert up.returncode == 0, f"{up.stdout}\n{up.stderr}\n{made.compose('logs', '--tail', '50', check=False).stdout}"
        yield made
    finally:
        made.compose("down", "-v", "--remove-orphans", check=False)


def _docker_daemon() -> None:
    """Debian's docker.io, docker-compose and debootstrap, installed when missing; dockerd started."""
    missing = [package for package, tool in (("docker.io", "dockerd"), ("docker-compose", "docker-compose"),
                                             ("debootstrap", "debootstrap")) if shutil.which(tool) is None]
    if missing:
        subprocess.run(["apt-get", "install", "-y", "-q", *missing], check=True, capture_output=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        log = open("/var/tmp/grader-dockerd.log", "ab")
        subprocess.Popen(["dockerd"], stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 60
        while subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
            assert time.monotonic() < deadline, "dockerd did not start: see /var/tmp/grader-dockerd.log"
            time.sleep(1)


def test_the_deployment_grades_through_tls_loses_nothing_when_killed_and_restores_from_a_backup(
        deployment: Deployment, tmp_path: Path) -> None:
    d = deployment
    # The workers' sandboxes have their layers inside the containers (capabilities named one by one).
    doctor = d.grader("worker1", "doctor").stdout
    assert "uid" in doctor and "netns" in doctor and "mountns" in doctor, doctor
    tokens = {who: d.grader("server1", "serve", "token", who, *(("--staff",) if who == "ta" else ())).stdout.strip()
              for who in ("ta", *(f"s{n}" for n in range(6)))}

    # A student submits with the real CLI, through the proxy's TLS (the site's certificate trusted).
    (tmp_path / "add.py").write_text(ADD)
    submitted = run_cli("submit", "add", tmp_path / "add.py", "--server", d.url, "--token", tokens["s0"],
                        env={"SSL_CERT_FILE": str(d.folder / "certs" / "site.crt")})
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr

    # An LMS registered in a server container: its OIDC login, begun through the proxy, sends the LMS the
    # proxy's https:// redirect URI with a Secure cookie (the servers trust the proxy's X-Forwarded-Proto).
    d.grader("server1", "serve", "lti", "add-platform", "--issuer", "https://lms.invalid", "--client-id", "c1",
             "--login-url", "https://lms.invalid/auth", "--token-url", "https://lms.invalid/token",
             "--keys-url", "https://lms.invalid/certs", "--deployment", "1")
    status, location, cookie = d.redirect(f"/lti/login?iss={quote('https://lms.invalid')}&client_id=c1&login_hint=u"
                                          f"&target_link_uri={quote(d.url + '/lti/launch')}")
    assert status in (302, 303, 307) and location.startswith("https://lms.invalid/auth?"), (status, location)
    assert parse_qs(urlsplit(location).query)["redirect_uri"] == [d.url + "/lti/launch"]
    assert "Secure" in cookie and "SameSite=none" in cookie, cookie

    # A small rush, a server and a worker killed in it: every acknowledged upload gets its report.
    acknowledged: list[tuple[str, int]] = []
    failures: list[str] = []

    def student(name: str) -> None:
        for round_ in range(3):
            body, content_type = multipart({"exercise": "add"}, "file", "add.py", (WRONG if round_ < 2 else ADD).encode())
            for _ in range(30):  # a student retries what got no answer
                try:
                    status, answer = d.call("POST", "/api/submissions", tokens[name], body, content_type)
                except OSError:
                    time.sleep(1)
                    continue
                if status == 202:
                    acknowledged.append((name, json.loads(answer)["id"]))
                    break
                if status < 500:
                    failures.append(f"{name}: {status} {answer[:200]!r}")
                    return
                time.sleep(1)
            time.sleep(0.3)

    threads = [threading.Thread(target=student, args=(f"s{n}",)) for n in range(1, 6)]
    for thread in threads:
        thread.start()
    time.sleep(1.5)
    d.kill("server1")
    d.kill("worker1")
    for thread in threads:
        thread.join(timeout=600)
    assert not failures and len(acknowledged) == 15, (failures, acknowledged)
    deadline = time.monotonic() + 600
    for name, number in acknowledged:
        while True:
            try:
                status, answer = d.call("GET", f"/api/submissions/{number}?wait=10", tokens[name])
            except OSError:
                status, answer = 0, b""
            if status == 200 and json.loads(answer)["status"] in ("done", "error"):
                assert json.loads(answer)["status"] == "done", answer
                break
            assert time.monotonic() < deadline, f"{name}'s submission {number} was never graded: {answer[:300]!r}"
            time.sleep(0.5)
    d.ready()
    status, before = d.call("GET", "/api/gradebook?format=csv", tokens["ta"])
    assert status == 200 and before.count(b"\n") >= 7, before

    # Backup, the volumes destroyed, the snapshot restored into new ones: the same gradebook, byte for byte.
    backed = d.grader("server1", "serve", "backup", "/backups/snapshot", "--exercises", "/course")
    assert "gradebook" in backed.stdout
    d.compose("down", "-v")
    d.compose("up", "-d", "database", "scheduler")
    d.healthy("database")
    restored = d.compose("run", "--rm", "--no-deps", "server1", "grader", "serve", "restore", "/backups/snapshot")
    assert "restored" in restored.stdout
    d.compose("up", "-d")
    d.ready()
    status, after = d.call("GET", "/api/gradebook?format=csv", tokens["ta"])
    assert status == 200 and after == before
