"""A real Moodle for the opt-in LTI test: set up once from Moodle's source tree, then reused.

    python tests/lti/moodle/site.py --source /work/moodle-src [--home DIR]   # set up (or check) and stop

The first run makes, under --home: a private PostgreSQL cluster (its own initdb folder and port, fsync off),
Moodle's data folder and its config.php, by Moodle's own CLI installer; later runs only start them. Moodle is
served by PHP's built-in server from the source tree (config.php is the one file written into the tree).
Nothing here fetches anything: the tree is taken from --source (README says how to get it)."""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

PG_BIN = Path("/usr/lib/postgresql/15/bin")
ADMIN_PASSWORD = "Admin-pass-1"
PHP = ("php", "-d", "max_input_vars=5000", "-d", "memory_limit=512M")
MARKER = "installed.txt"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def default_home(source: Path) -> Path:
    """Under the user's cache when the database's own user can walk there; else under /var/tmp. As root,
    the home is often mode 0700 and PostgreSQL's user (never root) could not reach a cluster under it."""
    key = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:12]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return (cache if walkable_by_others(cache) else Path("/var/tmp")) / "grader-moodle" / key


def walkable_by_others(folder: Path) -> bool:
    """Whether another uid can pass through every existing folder on the way to `folder` (o+x on each)."""
    for step in [*reversed(folder.resolve().parents), folder.resolve()]:
        if step.exists() and not step.stat().st_mode & 0o001:
            return False
    return True


@dataclass
class Site:
    source: Path
    home: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def db_port(self) -> int:
        return int((self.home / "ports").read_text().split()[0])

    @property
    def web_port(self) -> int:
        return int((self.home / "ports").read_text().split()[1])

    @property
    def wwwroot(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    # ------------------------------------------------------------ PostgreSQL
    def _start_postgres(self) -> None:
        # PostgreSQL will not run as root: a system user of its own owns the cluster's folder.
        subprocess.run(["useradd", "--system", "--no-create-home", "grader-moodle-pg"], capture_output=True)
        folder, data = self.home / "pg", self.home / "pg" / "data"
        if not data.exists():
            folder.mkdir(exist_ok=True)
            os.chown(folder, *self._pg_ids())
            self._as_pg([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"])
        uid, gid = self._pg_ids()
        if subprocess.run([str(PG_BIN / "pg_ctl"), "-D", str(data), "status"], user=uid, group=gid, cwd="/",
                          capture_output=True).returncode == 0:
            return  # left running by a run that was killed: used as it is
        self._as_pg([str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w", "start", "-o",
                     f"-p {self.db_port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                     "-c synchronous_commit=off -c full_page_writes=off"])

    def _stop_postgres(self) -> None:
        self._as_pg([str(PG_BIN / "pg_ctl"), "-D", str(self.home / "pg" / "data"), "-m", "fast", "-w", "stop"], check=False)

    def _pg_ids(self) -> tuple[int, int]:
        import pwd

        entry = pwd.getpwnam("grader-moodle-pg")
        return entry.pw_uid, entry.pw_gid

    def _as_pg(self, command: list[str], check: bool = True) -> None:
        uid, gid = self._pg_ids()
        subprocess.run(command, check=check, user=uid, group=gid, capture_output=True, cwd="/")

    # ------------------------------------------------------------ Moodle
    def set_up(self) -> float:
        """Install if it never was; start PostgreSQL and PHP's server. The seconds the set-up took."""
        began = time.monotonic()
        self.home.mkdir(parents=True, exist_ok=True)
        self.home.chmod(0o755)
        if not (self.home / "ports").exists():
            (self.home / "ports").write_text(f"{free_port()} {free_port()}\n")
        self._start_postgres()
        if not (self.home / MARKER).exists():
            self._install()
        self._serve()
        return time.monotonic() - began

    def _install(self) -> None:
        subprocess.run([str(PG_BIN / "psql"), "-h", "127.0.0.1", "-p", str(self.db_port), "-U", "postgres", "-c",
                        "DROP DATABASE IF EXISTS moodle"], check=True, capture_output=True)
        subprocess.run([str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.db_port), "-U", "postgres",
                        "-E", "UTF8", "moodle"], check=True, capture_output=True)
        data = self.home / "moodledata"
        data.mkdir(exist_ok=True)
        (self.source / "config.php").unlink(missing_ok=True)
        subprocess.run([*PHP, "admin/cli/install.php", "--non-interactive", "--agree-license", "--lang=en",
                        f"--wwwroot={self.wwwroot}", f"--dataroot={data}", "--dbtype=pgsql", "--dbhost=127.0.0.1",
                        f"--dbport={self.db_port}", "--dbname=moodle", "--dbuser=postgres", "--dbpass=x",
                        "--prefix=mdl_", "--fullname=Grader LTI test", "--shortname=graderlti",
                        "--adminuser=admin", f"--adminpass={ADMIN_PASSWORD}", "--adminemail=admin@example.org"],
                       cwd=self.source, check=True, capture_output=True)
        # Moodle refuses to fetch from loopback and odd ports by default: the tool's keys live there.
        for name, value in (("curlsecurityblockedhosts", ""), ("curlsecurityallowedport", ""),
                            ("passwordpolicy", "0"), ("noreplyaddress", "noreply@example.org")):
            subprocess.run([*PHP, "admin/cli/cfg.php", f"--name={name}", f"--set={value}"], cwd=self.source,
                           check=True, capture_output=True)
        (self.home / "config.php").write_bytes((self.source / "config.php").read_bytes())
        (self.home / MARKER).write_text(f"installed {time.ctime()}\n")

    def _serve(self) -> None:
        # The tree holds one site's config.php at a time: this site's (a cleaned tree, or another home's, is fixed).
        (self.source / "config.php").write_bytes((self.home / "config.php").read_bytes())
        log = open(self.home / "php.log", "ab")
        web = subprocess.Popen([*PHP, "-S", f"127.0.0.1:{self.web_port}"], cwd=self.source, stdout=log, stderr=log,
                               start_new_session=True, env={**os.environ, "PHP_CLI_SERVER_WORKERS": "4"})
        self.processes.append(web)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{self.wwwroot}/login/index.php", timeout=30) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def php(self, script: Path, *args: str) -> str:
        """A PHP CLI script of ours run against this Moodle: its first argument is the site's config.php."""
        done = subprocess.run([*PHP, str(script.resolve()), str(self.source / "config.php"), *args], cwd=self.source,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"PHP failed ({done.returncode}): {done.stdout[-3000:]} {done.stderr[-3000:]}")
        return done.stdout

    def sql(self, query: str) -> list[list[str]]:
        """Rows of a query on Moodle's database, read with psql (what Moodle's gradebook holds)."""
        done = subprocess.run([str(PG_BIN / "psql"), "-h", "127.0.0.1", "-p", str(self.db_port), "-U", "postgres",
                               "-d", "moodle", "-At", "-F", "\t", "-c", query], check=True, capture_output=True,
                              text=True)
        return [line.split("\t") for line in done.stdout.splitlines()]

    def stop(self) -> None:
        for process in self.processes:
            try:
                os.killpg(process.pid, signal.SIGTERM)  # PHP's workers outlive their parent: the whole group
            except ProcessLookupError:
                pass
            process.wait(timeout=10)
        self.processes.clear()
        self._stop_postgres()


def main() -> int:
    parser = argparse.ArgumentParser(description="Set up (once) the Moodle the opt-in LTI test runs against.")
    parser.add_argument("--source", type=Path, required=True, help="Moodle's source tree")
    parser.add_argument("--home", type=Path, help="where its database and data live (default: under ~/.cache, or /var/tmp when other users cannot enter the home)")
    args = parser.parse_args()
    site = Site(args.source.resolve(), (args.home or default_home(args.source)).resolve())
    seconds = site.set_up()
    print(f"Moodle at {site.wwwroot} ready in {seconds:.1f} s (home {site.home})")
    site.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
