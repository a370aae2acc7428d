"""A course's own submission server: `grader serve` (and `serve token`, `serve tokens`), and the student's
`grader submit`, which sends a file to it and prints the report as `grader check` does."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path

from grader.errors import UsageError
from grader.commands.arguments import whole_number
from grader.limits import argument

INSECURE_HELP = ("allow a plain http:// server on another host: your token then crosses the network unencrypted, "
                 "readable by anyone on the way")
from grader.exit_codes import ExitCode

TOKEN_VARIABLE = "GRADER_TOKEN"


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = subparsers.add_parser(
        "serve", help="serve a course: students submit over HTTP, workers grade, staff see the class",
        description="Serve a course's own submission server: the JSON API, the student and staff pages, "
                    "grading on local worker processes. `grader serve token STUDENT` issues a token.")
    _state_option(serve, required=False)
    serve.add_argument("--exercises", metavar="DIR", help="exercises folder (default: the course of the "
                                                         "current folder or above, else $GRADER_EXERCISES)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")
    serve.add_argument("--workers", metavar="N", type=whole_number(1), default=None,
                       help=f"local grading worker processes (default: one per core, {len(os.sched_getaffinity(0))} here)")
    serve.add_argument("--max-upload", metavar="KIB", type=whole_number(1), default=2048,
                       help="largest hand-in accepted, in KiB (default: 2048)")
    serve.add_argument("--roster", metavar="CSV", type=Path, help="who is who, for the LMS gradebooks "
                                                                 "(the roster `grader batch --roster` reads)")
    serve.add_argument("--cluster", metavar="ADDRESS", type=_address,
                       help="grade on a Dask cluster: tcp://HOST:PORT, or local:N to start N local workers "
                            "(the grader's dask extra)")
    serve.add_argument("--name", help="with --database: this server's name among those sharing it, the same "
                                      "after a restart (default: HOST:PORT)")
    serve.add_argument("--max-connections", metavar="N", type=whole_number(1), default=None,
                       help="connections open at once (default: 4096, fewer if the open-file limit is low); "
                            "over it, the oldest one still waiting on its request is closed")
    serve.add_argument("--max-per-address", metavar="N", type=whole_number(0), default=None,
                       help="connections open at once from one client address (default: 128; 0: no cap, "
                            "behind a reverse proxy on this host)")
    serve.add_argument("--read-timeout", metavar="SECONDS", type=argument("read_timeout"), default=20.0,
                       help="a request's head must arrive within it, and its body within it plus 1 s per "
                            "4 KiB (default: 20)")
    serve.add_argument("--insecure-cookies", action="store_true",
                       help="sign-in cookies without the Secure flag (a server reached over plain HTTP on a "
                            "name other than localhost)")
    serve.set_defaults(run=run_serve)
    actions = serve.add_subparsers(dest="action", metavar="ACTION", required=False)
    token = actions.add_parser("token", help="issue a token for one student (printed once)")
    token.add_argument("student", metavar="STUDENT", help="the student, as the roster's folder column names them")
    role = token.add_mutually_exclusive_group()
    role.add_argument("--staff", "--instructor", dest="staff", action="store_true",
                      help="an instructor's token: sees everything, regrades, releases reviews (docs/ta.md)")
    role.add_argument("--ta", action="store_true",
                      help="a TA's token: sees everything, reviews, answers regrade requests, overrides; "
                           "no regrades, releases or LMS sync (docs/ta.md)")
    _state_option(token)
    token.set_defaults(run=run_token)
    many = actions.add_parser("tokens", help="issue a token per roster student, printed as CSV")
    many.add_argument("--roster", metavar="CSV", type=Path, required=True, help="the roster (a `folder` column)")
    _state_option(many)
    many.set_defaults(run=run_tokens)
    from grader.platforms.lti.command import add_parser as add_lti  # `grader serve lti ...`

    add_lti(actions, _state_option)
    from grader.commands.server_backup import add_actions as add_backup  # `grader serve backup|restore|verify`

    add_backup(actions, _state_option)

    submit = subparsers.add_parser(
        "submit", help="submit a file to the course's server and print its report",
        description="Send a submission to a `grader serve` server, wait for its grading and print the report as "
                    "`grader check` does, with the same exit status.")
    submit.add_argument("exercise", metavar="EXERCISE", help="exercise id")
    submit.add_argument("file", metavar="FILE", type=Path, help="the file to hand in (.py, .ipynb, .zip)")
    submit.add_argument("--server", metavar="URL", help="the server, e.g. http://127.0.0.1:8000 (default: "
                                                        "$GRADER_SERVER, else the one `grader login` stored)")
    submit.add_argument("--token", metavar="TOKEN", help=f"your token (default: ${TOKEN_VARIABLE}, else the one "
                                                         f"`grader login` stored)")
    submit.add_argument("--format", choices=("terminal", "json"), default="terminal", help="report format")
    submit.add_argument("--timeout", metavar="SECONDS", type=argument("wait"), default=600, help="how long to wait (default 600)")
    submit.add_argument("--insecure", action="store_true", help=INSECURE_HELP)
    submit.set_defaults(run=run_submit)


STATE_VARIABLE, DATABASE_VARIABLE = "GRADER_STATE", "GRADER_DATABASE"  # set in a deployment's containers


def _state_option(parser: argparse.ArgumentParser, required: bool = True) -> None:
    state = os.environ.get(STATE_VARIABLE)
    parser.add_argument("--state", metavar="DIR", type=Path, required=required and not state,
                        default=Path(state) if state else None,
                        help=f"the server's state folder: its database and every hand-in (default: ${STATE_VARIABLE})")
    parser.add_argument("--database", metavar="URL", default=os.environ.get(DATABASE_VARIABLE) or None,
                        help="a PostgreSQL database (postgresql://...) instead of the state folder's SQLite: "
                             "several servers may share it and the folder (the grader's postgres extra; "
                             f"default: ${DATABASE_VARIABLE}; a password from $PGPASSWORD, never the URL)")


def _address(text: str) -> str:
    from grader.workers.cluster import check_address

    try:
        return check_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not tcp://HOST:PORT nor local:N: {text!r}") from None


def run_token(args: argparse.Namespace) -> ExitCode:
    from grader.server.state import State
    from grader.server.tokens import Role, issue

    if not args.student.strip() or any(ord(c) < 32 for c in args.student):
        raise UsageError("a student's name is printable text")
    state = State(args.state, args.database)
    print(issue(state, args.student, Role.INSTRUCTOR if args.staff else Role.TA if args.ta else Role.STUDENT))
    return ExitCode.OK


def run_tokens(args: argparse.Namespace) -> ExitCode:
    from grader.batch.roster import load_roster
    from grader.server.state import State
    from grader.server.tokens import issue_for_roster

    roster = load_roster(args.roster)
    students = [p.folder or p.login or p.email or p.sis_id or p.id for p in roster.people]
    sys.stdout.write(issue_for_roster(State(args.state, args.database), students))
    return ExitCode.OK


def run_serve(args: argparse.Namespace) -> ExitCode:
    if args.state is None:
        raise UsageError("--state DIR is needed: the folder of the server's database and hand-ins")
    try:
        import uvicorn
    except ImportError:
        from grader.install_hint import install_hint

        raise UsageError(f"grader serve needs its extra packages (Starlette, uvicorn): {install_hint('server')}") from None

    from grader.course import COURSE_FILE, Course
    from grader.server.app import Server, make_app
    from grader.server.queue import Exercises, GradingLoop
    from grader.server.rules import load_rules
    from grader.server.state import State
    from grader.workers.pool import default_workers

    course = Course.at(args.exercises)
    rules = load_rules(course.exercises_dir.parent / COURSE_FILE)
    from dataclasses import replace

    from grader.server.exams_spec import EXAMS_FOLDER, ExamBook

    rules = replace(rules, exams=ExamBook(course.exercises_dir.parent / EXAMS_FOLDER, course.exercises_dir))
    for problem in rules.exams.problems():  # the exam is not given until it is fixed (GET /api/exams: staff)
        print(f"exam not given: {problem}", file=sys.stderr)
    # Servers sharing a database are told apart by host and port: a restarted one takes back its own rows.
    name = args.name or f"{socket.gethostname()}:{args.port}"
    from grader.server.backup import Source, before_upgrade

    saved = before_upgrade(Source(args.state, args.database), course.exercises_dir)
    if saved is not None:
        print(f"the database's schema is older than this grader's: a snapshot is in {saved} before it migrates",
              file=sys.stderr)
    state = State(args.state, args.database, name if args.database else None)
    exercises = Exercises(course)
    loop = GradingLoop(state, exercises, args.workers or default_workers(), args.cluster)
    server = Server(state, exercises, rules, loop, args.max_upload * 1024, _class_list(args.roster, state),
                    secure_cookies=not args.insecure_cookies)
    from grader.server.connections import bound_the_log, fitted, protocol_for, quiet_when_gone, raise_open_files

    # uvicorn's own settings where they fit (its h11 parser, keep-alive timeout, backlog); the deadlines and
    # caps it lacks come from grader/server/connections.py's protocol.
    limits = fitted(raise_open_files(), args.max_connections, args.max_per_address, args.read_timeout)
    config = uvicorn.Config(quiet_when_gone(make_app(server)), host=args.host, port=args.port, log_level="warning",
                            access_log=False, lifespan="off", timeout_graceful_shutdown=5,
                            http=protocol_for(limits), backlog=limits.backlog)
    bound_the_log()
    web = uvicorn.Server(config)
    loop.start()
    try:
        web.config.load()
        sockets = [web.config.bind_socket()]
        sockets[0].listen(web.config.backlog)  # listening before the line that says where: clients may come at once
        host, port = sockets[0].getsockname()[:2]
        print(f"Serving {course.exercises_dir} on http://{host}:{port} (state in {args.state}, "
              f"{loop.size} {'Dask ' if args.cluster else ''}worker{'s' if loop.size != 1 else ''}); Ctrl-C stops", flush=True)
        web.run(sockets=sockets)
    finally:
        loop.stop()
        state.close()
    return ExitCode.OK


def _class_list(roster_path: Path | None, state: object) -> dict[str, object]:
    if roster_path is None:
        return {}
    from grader.batch.roster import class_list, load_roster
    from grader.server.state import State

    assert isinstance(state, State)
    return class_list(state.students(), {}, {}, load_roster(roster_path), {}, "server")


def run_submit(args: argparse.Namespace) -> ExitCode:
    from grader.server.client import server_and_token, submit

    server, token, insecure = server_and_token(args.server, args.token, args.insecure)
    if not args.file.is_file():
        raise UsageError(f"no file {args.file}")
    return submit(server, token, args.exercise, args.file, args.format, args.timeout, insecure)
