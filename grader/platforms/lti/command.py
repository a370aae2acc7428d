"""`grader serve lti ...`: register a platform (by options, or a JSON file of several), list them, print the
tool's JWKS, rotate its key. Light to import: the CLI builds its parser at every start."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.exit_codes import ExitCode

FIELDS = ("issuer", "client_id", "login_url", "token_url", "keys_url", "deployments")


def add_parser(actions: argparse._SubParsersAction, state_option: Callable[..., None]) -> None:  # type: ignore[type-arg]
    lti = actions.add_parser("lti", help="the server as an LTI 1.3 tool: platforms and keys",
                             description="Register the LMS platforms that launch this server, and manage the "
                                         "tool's keys (published at /lti/jwks).")
    steps = lti.add_subparsers(dest="lti_action", metavar="STEP", required=True)
    add = steps.add_parser("add-platform", help="register a platform (an LMS's tool registration)",
                           description="Register an LMS: its issuer, the client id it gave the tool, its "
                                       "endpoints and the deployment ids allowed. --file FILE registers each "
                                       f"object of a JSON list with the keys {', '.join(FIELDS)}.")
    add.add_argument("--file", type=Path, help="a JSON list of platforms")
    add.add_argument("--issuer", help="the platform's issuer (Moodle: its wwwroot)")
    add.add_argument("--client-id", help="the client id the platform gave this tool")
    add.add_argument("--login-url", help="the platform's OIDC authorisation URL (Moodle: /mod/lti/auth.php)")
    add.add_argument("--token-url", help="its OAuth2 token URL (Moodle: /mod/lti/token.php)")
    add.add_argument("--keys-url", help="its public keys, a JWKS URL (Moodle: /mod/lti/certs.php)")
    add.add_argument("--deployment", action="append", default=[], help="a deployment id allowed (repeat)")
    state_option(add)
    add.set_defaults(run=run_add)
    shown = steps.add_parser("platforms", help="list the registered platforms as JSON")
    state_option(shown)
    shown.set_defaults(run=run_list)
    keys = steps.add_parser("jwks", help="print the tool's public keys (a JWKS), made on first use")
    state_option(keys)
    keys.set_defaults(run=run_jwks)
    bind = steps.add_parser("bind", help="serve an LMS course (by its context id) besides the one first linked",
                            description="The server serves the LMS course it was first launched from, and the "
                                        "courses bound here: a launch from any other course is refused.")
    bind.add_argument("--issuer", required=True, help="the platform's issuer")
    bind.add_argument("--context", required=True, help="the course's context id, as its launches send it")
    state_option(bind)
    bind.set_defaults(run=run_bind)
    rotate = steps.add_parser("rotate-key", help="a new signing key; the previous one stays published")
    state_option(rotate)
    rotate.set_defaults(run=run_rotate)


def _store(args: argparse.Namespace) -> Any:
    from grader.platforms.lti.store import Store
    from grader.server.state import State

    return Store(State(args.state, args.database))


def _platform(entry: dict[str, Any], where: str) -> Any:
    from grader.platforms.lti.store import Platform

    missing = [key for key in FIELDS if not entry.get(key)]
    if missing:
        raise UsageError(f"{where}: {', '.join(missing)} missing")
    deployments = entry["deployments"]
    if not isinstance(deployments, list) or not all(isinstance(d, (str, int)) for d in deployments):
        raise UsageError(f"{where}: deployments is a list of ids")
    values = {key: entry[key] for key in FIELDS[:-1]}
    for key, value in values.items():
        if not isinstance(value, str) or (key.endswith("_url") and not value.startswith(("https://", "http://"))):
            raise UsageError(f"{where}: {key} must be {'an http(s) URL' if key.endswith('_url') else 'text'}")
    return Platform(**values, deployments=tuple(str(d) for d in deployments))


def run_add(args: argparse.Namespace) -> ExitCode:
    if args.file:
        try:
            entries = json.loads(args.file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise UsageError(f"cannot read {args.file}: {error}") from None
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise UsageError(f"{args.file}: a JSON list of objects")
        platforms = [_platform(e, f"{args.file} entry {n}") for n, e in enumerate(entries, 1)]
    else:
        platforms = [_platform({"issuer": args.issuer, "client_id": args.client_id, "login_url": args.login_url,
                                "token_url": args.token_url, "keys_url": args.keys_url,
                                "deployments": args.deployment}, "add-platform")]
    store = _store(args)
    for platform in platforms:
        store.add_platform(platform)
        print(f"registered {platform.issuer} (client {platform.client_id}, deployments "
              f"{', '.join(platform.deployments)})")
    return ExitCode.OK


def run_list(args: argparse.Namespace) -> ExitCode:
    store = _store(args)
    json.dump([{key: (list(getattr(p, key)) if key == "deployments" else getattr(p, key)) for key in FIELDS}
               for p in store.platforms()], sys.stdout, indent=2)
    print()
    return ExitCode.OK


def run_jwks(args: argparse.Namespace) -> ExitCode:
    from grader.platforms.lti.keys import jwks

    json.dump(jwks(_store(args)), sys.stdout, indent=2)
    print()
    return ExitCode.OK


def run_rotate(args: argparse.Namespace) -> ExitCode:
    from grader.platforms.lti.keys import rotate

    print(f"the tool now signs with key {rotate(_store(args))}; the previous key stays published")
    return ExitCode.OK


def run_bind(args: argparse.Namespace) -> ExitCode:
    store = _store(args)
    store.add_context(args.issuer, args.context)
    print(json.dumps([{"issuer": issuer, "context": context} for issuer, context in store.contexts()]))
    return ExitCode.OK
