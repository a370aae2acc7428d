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
    "cgroup": "total memory, process count and CPU of every process of the submission (v1)",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("doctor", help="show which sandbox layers work here",
                                   description="Show which sandbox layers work on this machine and why the "
                                               "others do not (GRADER_LAYERS=a,b keeps only those).")
    parser.set_defaults(run=run_doctor)


def report_lines(isolation: Isolation) -> list[tuple[str, bool, str]]:
    """(layer, in force, what it gives or why it is missing) for every layer."""
    from grader.sandbox.isolation import LAYERS

    rows = []
    for name in LAYERS:
        on = isolation.uid is not None if name == "uid" else bool(getattr(isolation, name))
        detail = WHAT[name] if on else isolation.missing.get(name, "not detected")
        if name == "uid" and on:
            detail = f"uid {isolation.uid}: {detail}"
        rows.append((name, on, detail))
    return rows


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
    if not isolation.signals_confined:
        console.print(Text("Warning: neither a dedicated uid nor Landlock's signal scope: a submission can "
                           "signal every process of this user, and its leftovers live until the sandbox closes.",
                           style="yellow"))
    if not (isolation.mountns or isolation.landlock):
        console.print(Text("Warning: no mount namespace and no Landlock: the submission can read every file "
                           "its uid can read, a world-readable course folder included.", style="yellow"))
    return ExitCode.OK
