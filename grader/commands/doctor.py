"""grader doctor: which isolation layers work on this machine, and why the others do not."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from grader.exit_codes import ExitCode

if TYPE_CHECKING:
    from grader.sandbox.isolation import Isolation

WHAT = {
    "uid": "a dedicated uid per grader process: RLIMIT_NPROC counts, the grader's files and /proc are out of "
           "reach, every leftover process can be killed",
    "seccomp": "no INET/UDP sockets, ptrace, mount, namespaces, bpf, io_uring (works in containers)",
    "netns": "an empty network namespace: not even 127.0.0.1 is reachable",
    "mountns": "every folder but the system ones covered by an empty tmpfs, a private /tmp and /proc",
    "landlock": "reads only under the system folders, writes only in the working folder, no TCP; "
                "with ABI >= 6 no signal or abstract socket outside the sandbox",
    "cgroup": "total memory, process count and CPU of every process of the submission (v1, or v2 "
              "with the memory and pids controllers)",
}


# README's threat table: what holds whatever the layers, and what each layer adds against the threat.
THREATS: dict[str, tuple[str, dict[str, str]]] = {
    "CPU": ("SIGPROF, RLIMIT_CPU, the wall clock, CPU read from /proc",
            {"cgroup": "CPU of helpers it never reaps"}),
    "memory": ("RLIMIT_AS per process", {"cgroup": "all its processes together"}),
    "processes, threads": ("RLIMIT_NPROC on the user's count", {"uid": "RLIMIT_NPROC of its own",
                                                                "cgroup": "pids.max"}),
    "output, files": ("memfds and RLIMIT_FSIZE, NOFILE, CORE", {}),
    "leftovers": ("process group kill, subreaper", {"uid": "kill(-1) confined to it",
                                                    "landlock": "signals scoped to it (ABI >= 6)",
                                                    "cgroup": "every member killed"}),
    "network": ("", {"seccomp": "no INET socket", "netns": "an empty network namespace",
                     "landlock": "no TCP (ABI >= 4)"}),
    "reading": ("", {"landlock": "reads only system folders", "mountns": "other folders covered",
                     "uid": "the grader's files and /proc are another user's"}),
    "forging": ("the grader compares, tagged JSON, seq numbers", {}),
    "leaking hidden inputs": ("a fresh sandbox after a hidden test, folders emptied per test", {}),
    "privilege": ("no_new_privs", {"uid": "never root, no capability left", "seccomp": "no ptrace, mount, "
                                   "modules, clock, devices"}),
    "terminal": ("escaped output", {}),
}


def threat_rows(isolation: Isolation) -> list[tuple[str, str, str]]:
    """(threat, what holds it here, what stays open here) for every threat of README's table."""
    rows = []
    for threat, (always, by_layer) in THREATS.items():
        held = [always] if always else []
        held += [f"{layer}: {what}" for layer, what in by_layer.items() if _on(isolation, layer)]
        open_ = [f"{layer} off: {what}" for layer, what in by_layer.items() if not _on(isolation, layer)]
        rows.append((threat, "; ".join(held) or "nothing", "; ".join(open_) or "-"))
    return rows


def _on(isolation: Isolation, layer: str) -> bool:
    return isolation.uid is not None if layer == "uid" else bool(getattr(isolation, layer))


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("doctor", help="show which sandbox layers work here",
                                   description="Show which sandbox layers work on this machine, why the others "
                                               "do not, and which threat each covers (GRADER_LAYERS=a,b keeps "
                                               "only those; GRADER_REQUIRE_LAYERS=a,b: exit 1 without them).")
    parser.set_defaults(run=run_doctor)


def report_lines(isolation: Isolation) -> list[tuple[str, bool, str]]:
    """(layer, in force, what it gives or why it is missing) for every layer."""
    from grader.sandbox.isolation import LAYERS

    rows = []
    for name in LAYERS:
        on = _on(isolation, name)
        detail = WHAT[name] if on else isolation.missing.get(name, "not detected")
        if name == "uid" and on:
            detail = f"uid {isolation.uid}: {detail}"
        rows.append((name, on, detail))
    return rows


def _environment_line() -> str:
    """The environment of the course of the current folder: what its submissions may import, built or not."""
    from grader.course import Course
    from grader.environment import environment_of_course
    from grader.sandbox.environments import environments_root
    from grader.errors import GraderError

    try:
        course = Course.at(None)
        environment = environment_of_course(course.exercises_dir)
    except GraderError as error:
        return f"Course environment: cannot tell ({error})"
    if environment is None:
        return f"Course environment: none declared ({course.exercises_dir}): the standard library only"
    state = f"built at {environment.path}" if environment.built else "NOT built: run `grader env build`"
    return (f"Course environment: {environment.name}, {state}; the sandbox may read {environments_root()} "
            f"(read-only, the environments' packages)")


def _fork_server_line(isolation: Isolation) -> str:
    from grader.sandbox.forks import refusal

    why = refusal(isolation)
    if not why:
        return ("Batch: each worker forks its sandboxes from a fork server (the interpreter, the harness and the "
                "environment's numpy and pandas loaded once), every layer and limit as above")
    return f"Batch: a sandbox started anew per submission, as `grader check` does (no fork server: {why})"


def run_doctor(args: argparse.Namespace) -> ExitCode:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from grader.sandbox import linux
    from grader.sandbox.isolation import child_python, detect

    isolation = detect()
    console = Console(highlight=False, emoji=False)
    table = Table(header_style="bold", title="Sandbox layers on this machine")
    for column in ("layer", "status", "what it enforces / why it is off"):
        table.add_column(column)
    for name, on, detail in report_lines(isolation):
        table.add_row(name, Text("works", style="green") if on else Text("off", style="red"), Text(detail))
    console.print(table)
    abi = linux.landlock_abi()
    console.print(Text(f"Always: rlimits (CPU, address space, file size, open files, no core) and a minimal "
                       f"environment. Landlock ABI {abi}; running as uid {os.geteuid()}; the sandbox runs "
                       f"{child_python()}.", style="dim"))
    console.print(Text(f"Reports will say: {isolation.describe()}", style="bold"))
    console.print(Text(_environment_line()))
    console.print(Text(_fork_server_line(isolation)))
    threats = Table(header_style="bold", title="Threats (README's table) on this machine")
    for column in ("threat", "held here by", "open here"):
        threats.add_column(column)
    for threat, held, open_ in threat_rows(isolation):
        threats.add_row(threat, Text(held), Text(open_, style="yellow" if open_ != "-" else ""))
    console.print(threats)
    if not isolation.signals_confined:
        console.print(Text("Warning: neither a dedicated uid nor Landlock's signal scope: a submission can "
                           "signal every process of this user, and its leftovers live until the sandbox closes.",
                           style="yellow"))
    if not (isolation.mountns or isolation.landlock):
        console.print(Text("Warning: no mount namespace and no Landlock: the submission can read every file "
                           "its uid can read, a world-readable course folder included.", style="yellow"))
    from grader.sandbox.isolation import refusal, required_layers

    if required_layers():
        refused = refusal(isolation)
        console.print(Text(refused or f"Required layers (GRADER_REQUIRE_LAYERS): {', '.join(required_layers())}: "
                           "all in force.", style="red bold" if refused else "green"))
        if refused:
            return ExitCode.TESTS_FAILED
    return ExitCode.OK
