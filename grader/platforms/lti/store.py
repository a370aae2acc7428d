"""The LTI tables, in the server's own database (SQLite or PostgreSQL, through State's transactions): a tool
that runs on several servers sharing a database shares its keys, its platforms and its once-only values."""

from __future__ import annotations

import json
import time
from typing import Any

from grader.records import record
from grader.server.roles import Role, level_of
from grader.server.state import State

TABLES = (
    """CREATE TABLE IF NOT EXISTS lti_platforms (
        issuer TEXT NOT NULL, client_id TEXT NOT NULL, login_url TEXT NOT NULL, token_url TEXT NOT NULL,
        keys_url TEXT NOT NULL, deployments TEXT NOT NULL,   -- a JSON list of the deployment ids allowed
        PRIMARY KEY (issuer, client_id))""",
    """CREATE TABLE IF NOT EXISTS lti_keys (
        kid TEXT PRIMARY KEY, private_pem TEXT NOT NULL, public_jwk TEXT NOT NULL, created_at REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS lti_once (     -- state, nonce (used once) and launches (read again)
        name TEXT PRIMARY KEY, value TEXT NOT NULL, expires REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS lti_users (    -- an LMS user, and the server's name for them
        issuer TEXT NOT NULL, subject TEXT NOT NULL, student TEXT NOT NULL, staff INTEGER NOT NULL,
        PRIMARY KEY (issuer, subject))""",
    """CREATE TABLE IF NOT EXISTS lti_links (    -- a resource link: an exercise placed in a course
        issuer TEXT NOT NULL, client_id TEXT NOT NULL, link TEXT NOT NULL, context TEXT NOT NULL,
        exercise TEXT NOT NULL, lineitem TEXT, scopes TEXT NOT NULL, members_url TEXT,
        PRIMARY KEY (issuer, link))""",
    """CREATE TABLE IF NOT EXISTS lti_sends (    -- the last score sent to a line item per student, or why not
        issuer TEXT NOT NULL, link TEXT NOT NULL, subject TEXT NOT NULL, sent REAL,
        wanted REAL, failures INTEGER NOT NULL, error TEXT, at REAL NOT NULL,
        PRIMARY KEY (issuer, link, subject))""",
    """CREATE TABLE IF NOT EXISTS lti_roster (   -- the course's members, as the LMS names them (NRPS)
        issuer TEXT NOT NULL, context TEXT NOT NULL, subject TEXT NOT NULL, name TEXT, email TEXT,
        roles TEXT NOT NULL, PRIMARY KEY (issuer, context, subject))""",
    """CREATE TABLE IF NOT EXISTS lti_contexts ( -- the LMS courses this server serves: the first linked, or bound
        issuer TEXT NOT NULL, context TEXT NOT NULL, PRIMARY KEY (issuer, context))""",
    """CREATE TABLE IF NOT EXISTS lti_listed (   -- a learner the LMS listed, and the name a launch would give
        issuer TEXT NOT NULL, subject TEXT NOT NULL, student TEXT NOT NULL, PRIMARY KEY (issuer, subject))""",
)
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
TA_ROLES = (f"{MEMBERSHIP}/Instructor#TeachingAssistant", f"{MEMBERSHIP}#TeachingAssistant")
INSTRUCTOR_ROLES = (f"{MEMBERSHIP}#Instructor",)


def wanted_name(candidates: list[object], subject: str) -> str:
    """The server's name for an LMS user: the first candidate that reads as a name (their LMS login where
    the LMS sends one, else their email), else one made of the LMS's opaque id."""
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.strip() and candidate.isprintable() and len(candidate) <= 100:
            return candidate.strip()
    return f"lti-{subject[-24:]}"


def role_of(roles: object) -> Role:
    """The server's role for an LMS user's roles in the launch's own course. Only context membership roles
    count, and only the teaching ones make staff: an institution's or the system's Instructor or
    Administrator (…/institution/person#…, …/system/person#…) teaches no course of theirs, and a course's
    Administrator, ContentDeveloper or Mentor grades nothing. A TA's sub-role wins over the Instructor role
    an LMS may send with it (the narrower of the two). Whole URIs only: no suffix match."""
    names = {r for r in roles if isinstance(r, str)} if isinstance(roles, list) else set()
    if names.intersection(TA_ROLES):
        return Role.TA
    if names.intersection(INSTRUCTOR_ROLES):
        return Role.INSTRUCTOR
    return Role.STUDENT


@record
class Platform:
    issuer: str
    client_id: str
    login_url: str
    token_url: str
    keys_url: str
    deployments: tuple[str, ...]


@record
class Link:
    issuer: str
    client_id: str
    link: str
    context: str
    exercise: str
    lineitem: str | None
    scopes: tuple[str, ...]
    members_url: str | None


class Store:
    def __init__(self, state: State) -> None:
        self.state = state
        with state.transaction() as db:
            for sql in TABLES:
                db.execute(sql)

    def _read(self, sql: str, values: tuple[object, ...] = ()) -> list[Any]:
        with self.state.lock:  # the writer's connection: a value written a moment ago is seen
            return list(self.state.db.execute(sql, values).fetchall())

    # ------------------------------------------------------------ platforms
    def add_platform(self, platform: Platform) -> None:
        with self.state.transaction() as db:
            db.execute("DELETE FROM lti_platforms WHERE issuer = ? AND client_id = ?",
                       (platform.issuer, platform.client_id))
            db.execute("INSERT INTO lti_platforms VALUES (?, ?, ?, ?, ?, ?)",
                       (platform.issuer, platform.client_id, platform.login_url, platform.token_url,
                        platform.keys_url, json.dumps(list(platform.deployments))))

    def platforms(self, issuer: str | None = None) -> list[Platform]:
        rows = self._read("SELECT * FROM lti_platforms" + (" WHERE issuer = ?" if issuer is not None else "") +
                          " ORDER BY issuer, client_id", (issuer,) if issuer is not None else ())
        return [Platform(*row[:5], tuple(json.loads(row[5]))) for row in rows]

    def platform(self, issuer: str, client_id: str | None) -> Platform | None:
        found = [p for p in self.platforms(issuer) if client_id is None or p.client_id == client_id]
        return found[0] if len(found) == 1 else None  # one issuer, several clients: the client id must say

    # ------------------------------------------------------------ keys
    def add_key(self, kid: str, private_pem: str, public_jwk: dict[str, Any]) -> None:
        with self.state.transaction() as db:
            db.execute("INSERT INTO lti_keys VALUES (?, ?, ?, ?)", (kid, private_pem, json.dumps(public_jwk),
                                                                    time.time()))

    def keys(self) -> list[tuple[str, str, dict[str, Any], float]]:
        """(kid, private PEM, public JWK, created at), newest first: the first signs."""
        rows = self._read("SELECT kid, private_pem, public_jwk, created_at FROM lti_keys ORDER BY created_at DESC")
        return [(kid, pem, json.loads(jwk), at) for kid, pem, jwk, at in rows]

    def drop_keys_before(self, created_at: float) -> None:
        with self.state.transaction() as db:
            db.execute("DELETE FROM lti_keys WHERE created_at < ?", (created_at,))

    # ------------------------------------------------------------ values used once, launches
    def put(self, name: str, value: object, seconds: float) -> None:
        now = time.time()
        with self.state.transaction() as db:
            db.execute("DELETE FROM lti_once WHERE name = ? OR expires < ?", (name, now))
            db.execute("INSERT INTO lti_once VALUES (?, ?, ?)", (name, json.dumps(value), now + seconds))

    def get(self, name: str) -> Any:
        rows = self._read("SELECT value FROM lti_once WHERE name = ? AND expires >= ?", (name, time.time()))
        return json.loads(rows[0][0]) if rows else None

    def take(self, name: str) -> Any:
        """The value, deleted in the same transaction: a second taker (a replay, another server) gets None."""
        with self.state.transaction() as db:
            row = db.execute("DELETE FROM lti_once WHERE name = ? AND expires >= ? RETURNING value",
                             (name, time.time())).fetchone()
        return json.loads(row[0]) if row else None

    # ------------------------------------------------------------ users, links, roster
    def user(self, issuer: str, subject: str, wanted: str, role: Role) -> str:
        """The server's name for this LMS user: the one given at their first launch, kept after; another
        user with the same wanted name gets it with the subject's end added."""
        with self.state.transaction() as db:
            row = db.execute("SELECT student FROM lti_users WHERE issuer = ? AND subject = ?",
                             (issuer, subject)).fetchone()
            if row:
                db.execute("UPDATE lti_users SET staff = ? WHERE issuer = ? AND subject = ?",
                           (level_of(role), issuer, subject))
                return str(row[0])
            name = wanted
            if db.execute("SELECT 1 FROM lti_users WHERE student = ?", (name,)).fetchone():
                name = f"{wanted}~{subject[-8:]}"
            db.execute("INSERT INTO lti_users VALUES (?, ?, ?, ?)", (issuer, subject, name, level_of(role)))
            return name

    # ------------------------------------------------------------ the courses served
    def bind(self, issuer: str, context: str) -> bool:
        """Whether this server serves the LMS course: bound to it before, or to none yet (the first launch
        binds its course, in the transaction that checks, so two first launches cannot both bind)."""
        with self.state.transaction() as db:
            if db.execute("SELECT 1 FROM lti_contexts WHERE issuer = ? AND context = ?", (issuer, context)).fetchone():
                return True
            if not db.execute("SELECT 1 FROM lti_contexts").fetchone():  # a server linked before binding was kept:
                db.execute("INSERT INTO lti_contexts SELECT DISTINCT issuer, context FROM lti_links")  # its courses
            if db.execute("SELECT 1 FROM lti_contexts").fetchone():
                return bool(db.execute("SELECT 1 FROM lti_contexts WHERE issuer = ? AND context = ?",
                                       (issuer, context)).fetchone())
            db.execute("INSERT INTO lti_contexts VALUES (?, ?)", (issuer, context))
            return True

    def add_context(self, issuer: str, context: str) -> None:
        with self.state.transaction() as db:
            db.execute("DELETE FROM lti_contexts WHERE issuer = ? AND context = ?", (issuer, context))
            db.execute("INSERT INTO lti_contexts VALUES (?, ?)", (issuer, context))

    def contexts(self) -> list[tuple[str, str]]:
        return [(row[0], row[1]) for row in self._read("SELECT issuer, context FROM lti_contexts ORDER BY 1, 2")]

    def users(self, issuer: str) -> dict[str, str]:
        """subject -> the server's student name, for the learners of a platform."""
        return dict(self._read("SELECT subject, student FROM lti_users WHERE issuer = ? AND staff = 0", (issuer,)))

    def save_link(self, link: Link) -> None:
        with self.state.transaction() as db:
            db.execute("DELETE FROM lti_links WHERE issuer = ? AND link = ?", (link.issuer, link.link))
            db.execute("INSERT INTO lti_links VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (link.issuer, link.client_id, link.link, link.context, link.exercise, link.lineitem,
                        json.dumps(list(link.scopes)), link.members_url))

    def links(self) -> list[Link]:
        rows = self._read("SELECT * FROM lti_links ORDER BY issuer, link")
        return [Link(*row[:6], tuple(json.loads(row[6])), row[7]) for row in rows]

    def sends(self) -> dict[tuple[str, str, str], tuple[float | None, float | None, int, str | None, float]]:
        """(issuer, link, subject) -> (score sent, score wanted, failures, error, at)."""
        rows = self._read("SELECT issuer, link, subject, sent, wanted, failures, error, at FROM lti_sends")
        return {(r[0], r[1], r[2]): (r[3], r[4], r[5], r[6], r[7]) for r in rows}

    def record_send(self, issuer: str, link: str, subject: str, wanted: float, error: str | None) -> None:
        """A send's outcome: the score now in the LMS, or the error and one more failure."""
        with self.state.transaction() as db:
            row = db.execute("SELECT sent, failures FROM lti_sends WHERE issuer = ? AND link = ? AND subject = ?",
                             (issuer, link, subject)).fetchone()
            sent, failures = (row[0], row[1]) if row else (None, 0)
            db.execute("DELETE FROM lti_sends WHERE issuer = ? AND link = ? AND subject = ?", (issuer, link, subject))
            db.execute("INSERT INTO lti_sends VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (issuer, link, subject, wanted if error is None else sent, wanted,
                        0 if error is None else failures + 1, error, time.time()))

    def save_member(self, issuer: str, context: str, subject: str, name: object, email: object,
                    roles: list[str]) -> None:
        """One member, as a launch shows them: kept until the LMS's own roster replaces the course's."""
        with self.state.transaction() as db:
            db.execute("DELETE FROM lti_roster WHERE issuer = ? AND context = ? AND subject = ?",
                       (issuer, context, subject))
            db.execute("INSERT INTO lti_roster VALUES (?, ?, ?, ?, ?, ?)",
                       (issuer, context, subject, name if isinstance(name, str) else None,
                        email if isinstance(email, str) else None, json.dumps([r for r in roles if isinstance(r, str)])))

    def members(self, issuer: str, context: str) -> set[str]:
        return {row[0] for row in self._read("SELECT subject FROM lti_roster WHERE issuer = ? AND context = ?",
                                             (issuer, context))}

    def save_roster(self, issuer: str, context: str, members: list[dict[str, Any]]) -> None:
        """The LMS's list of a course's members, added to those its launches showed (a launch is proof of
        membership too, and a platform may page or filter its list). Each learner's name, as a launch would
        give it, is kept: a student who hands in another way (a token) is still sent their score."""
        for member in members:
            if not member.get("user_id") or not isinstance(member.get("user_id"), (str, int)):
                continue
            subject = str(member["user_id"])
            self.save_member(issuer, context, subject, member.get("name"), member.get("email"),
                             member.get("roles") if isinstance(member.get("roles"), list) else [])
            if role_of(member.get("roles")) is Role.STUDENT:
                # Moodle lists the login as ext_user_username, as its launches do; Canvas lists none.
                name = wanted_name([member.get("ext_user_username"), member.get("email")], subject)
                with self.state.transaction() as db:
                    db.execute("DELETE FROM lti_listed WHERE issuer = ? AND subject = ?", (issuer, subject))
                    db.execute("INSERT INTO lti_listed VALUES (?, ?, ?)", (issuer, subject, name))

    def listed(self, issuer: str) -> dict[str, str]:
        """subject -> the name a launch would give them, for the learners the LMS listed."""
        return dict(self._read("SELECT subject, student FROM lti_listed WHERE issuer = ?", (issuer,)))

    def adopt(self, issuer: str, subject: str, student: str) -> bool:
        """Bind a listed learner who never launched to the server's student of that name, as their first
        launch would: only when no other LMS user has the name already. Whether they are bound now."""
        with self.state.transaction() as db:
            if db.execute("SELECT 1 FROM lti_users WHERE (issuer = ? AND subject = ?) OR student = ?",
                          (issuer, subject, student)).fetchone():
                return False
            db.execute("INSERT INTO lti_users VALUES (?, ?, ?, 0)", (issuer, subject, student))
            return True

    def roster(self) -> list[dict[str, Any]]:
        rows = self._read("SELECT r.issuer, r.context, r.subject, r.name, r.email, r.roles, u.student FROM lti_roster r "
                          "LEFT JOIN lti_users u ON u.issuer = r.issuer AND u.subject = r.subject ORDER BY 1, 2, 4")
        return [{"issuer": r[0], "context": r[1], "user_id": r[2], "name": r[3], "email": r[4],
                 "roles": json.loads(r[5]), "student": r[6]} for r in rows]
