"""PyLTI1p3 fitted to the server: its request, cookie and session services over Starlette and the store.

The library checks the id_token's signature against the platform's published keys, the registration (issuer
and client id), the deployment id, `exp`/`iat` and each message type's required claims. What it leaves to the
tool is done here: a nonce is valid once (taken from the database, so a replay fails even on another server
sharing it), the OIDC state is valid once and only in the browser that began the login (a cookie), and a
token naming several audiences must name us as its `azp`."""

from __future__ import annotations

import typing as t
from typing import Any

from cryptography.hazmat.primitives import serialization
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.registration import Registration
from pylti1p3.request import Request
from pylti1p3.session import SessionService
from pylti1p3.cookie import CookieService
from pylti1p3.tool_config.abstract import ToolConfAbstract

from grader.platforms.lti.keys import signing_key
from grader.platforms.lti.store import Platform, Store

STATE_SECONDS = 300  # from the login's redirect to the launch: a person clicking, not a day
LAUNCH_SECONDS = 3600  # a deep-linking launch kept for the instructor's pick
COOKIE_PREFIX = "lti1p3-"


class LaunchError(Exception):
    """A launch refused, with the reason shown to the person (never a traceback)."""


class CookieLost(LaunchError):
    """The login's state came back without the cookie the login set: a browser that keeps no cookie for the
    tool inside the LMS's page (third-party cookies blocked, or SameSite=Lax over plain HTTP), or a state
    from another browser. `login`: the login's own parameters, to begin it again in a window of its own."""

    def __init__(self, login: dict[str, str]) -> None:
        super().__init__("the login's state came back without its cookie: this browser keeps no cookie for the "
                         "tool inside the course's page")
        self.login = login


LOGIN_FIELDS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id", "lti_deployment_id")


class LtiRequest(Request):
    def __init__(self, params: dict[str, str], cookies: dict[str, str], secure: bool) -> None:
        self.params, self.cookies, self.secure = params, cookies, secure

    @property
    def session(self) -> dict[str, Any]:  # never used: the session service below is the store
        return {}

    def is_secure(self) -> bool:
        return self.secure

    def get_param(self, key: str) -> str:
        return self.params.get(key, "")


class Cookies(CookieService):
    """Reads the request's cookies; the ones set are handed to the response by the route. A state cookie
    set at login is also kept in the store, to be taken once at the launch."""

    def __init__(self, request: LtiRequest, store: Store) -> None:
        self.request, self.store = request, store
        self.to_set: dict[str, tuple[str, int]] = {}

    def get_cookie(self, name: str) -> str | None:
        return self.request.cookies.get(COOKIE_PREFIX + name)

    def set_cookie(self, name: str, value: t.Union[str, int], exp: t.Optional[int] = 3600) -> None:
        self.to_set[COOKIE_PREFIX + name] = (str(value), int(exp or STATE_SECONDS))
        if name.startswith("state-"):
            self.store.put(f"state:{value}", True, STATE_SECONDS)


class Sessions(SessionService):
    """The library's session, kept in the store: nonces taken once, launches kept an hour."""

    def __init__(self, store: Store) -> None:  # noqa: D107 - no request session: the store is the session
        self.store = store

    def save_nonce(self, nonce: str) -> None:
        self.store.put(f"nonce:{nonce}", True, STATE_SECONDS)

    def check_nonce(self, nonce: str) -> bool:
        return self.store.take(f"nonce:{nonce}") is not None

    def save_launch_data(self, key: str, jwt_body: t.Mapping[str, Any]) -> None:
        self.store.put(f"launch:{key}", dict(jwt_body), LAUNCH_SECONDS)

    def get_launch_data(self, key: str) -> Any:
        return self.store.get(f"launch:{key}")

    def save_state_params(self, state: str, params: dict[str, object]) -> None:
        self.store.put(f"params:{state}", params, STATE_SECONDS)

    def get_state_params(self, state: str) -> Any:
        return self.store.get(f"params:{state}")

    def set_state_valid(self, state: str, id_token_hash: str) -> None:
        pass  # the library's "launch again with the same state" is exactly a replay: never valid

    def check_state_is_valid(self, state: str, id_token_hash: str) -> bool:
        return False

    def set_data_storage(self, data_storage: Any) -> None:
        pass

    def set_launch_data_lifetime(self, time_sec: int) -> None:
        pass


def registration(platform: Platform, store: Store) -> Registration:
    kid, pem = signing_key(store)
    private = serialization.load_pem_private_key(pem.encode(), password=None)
    public = private.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return (Registration().set_issuer(platform.issuer).set_client_id(platform.client_id)
            .set_auth_login_url(platform.login_url).set_auth_token_url(platform.token_url)
            .set_key_set_url(platform.keys_url).set_tool_private_key(pem).set_tool_public_key(public))


class ToolConf(ToolConfAbstract[LtiRequest]):
    """The platforms registered in the store: several per server, several client ids per issuer."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.issuers_relation_types = {}

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration | None:  # type: ignore[override]
        platform = self.store.platform(iss, None)
        return registration(platform, self.store) if platform else None

    def find_registration_by_params(self, iss: str, client_id: str, *args: Any, **kwargs: Any) -> Registration | None:  # type: ignore[override]
        platform = self.store.platform(iss, client_id or None)
        return registration(platform, self.store) if platform else None

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return None  # every issuer may have several clients: find_deployment_by_params is asked

    def find_deployment_by_params(self, iss: str, deployment_id: str, client_id: str, *args: Any,
                                  **kwargs: Any) -> Deployment | None:
        platform = self.store.platform(iss, client_id)
        if platform is None or str(deployment_id) not in platform.deployments:
            return None
        return Deployment().set_deployment_id(str(deployment_id))


class _Location(Redirect[str]):
    def __init__(self, location: str, cookies: CookieService) -> None:
        self.location = location

    def do_redirect(self) -> str:
        return self.location

    def do_js_redirect(self) -> str:
        return self.location

    def set_redirect_url(self, location: str) -> None:
        self.location = location

    def get_redirect_url(self) -> str:
        return self.location


class Login(OIDCLogin[LtiRequest, ToolConf, Sessions, Cookies, str]):
    def get_redirect(self, url: str) -> _Location:
        return _Location(url, self._cookie_service)

    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


class Launch(MessageLaunch[LtiRequest, ToolConf, Sessions, Cookies]):
    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


def login_redirect(store: Store, request: LtiRequest, launch_url: str) -> tuple[str, Cookies]:
    """The platform's authorisation URL this login continues at, and the cookies to set (the state)."""
    if not request.get_param("client_id"):  # optional in the spec: an issuer of one client names it
        platform = store.platform(request.get_param("iss"), None)
        if platform is not None:
            request.params["client_id"] = platform.client_id
    target = request.get_param("target_link_uri")
    if target and not target.startswith(launch_url.rsplit("/lti/", 1)[0] + "/"):
        raise LaunchError("the launch's target is not this server")
    cookies = Cookies(request, store)
    try:
        location = Login(request, ToolConf(store), Sessions(store), cookies).get_redirect_object(launch_url)
    except (LtiException, OIDCException) as problem:
        raise LaunchError(str(problem)) from None
    except Exception as problem:  # noqa: BLE001 - the library raises plain errors on some malformed logins
        raise LaunchError(f"a malformed login: {type(problem).__name__}") from None
    for name in cookies.to_set:  # the login's parameters, kept with its state: to begin it again elsewhere
        if name.startswith(COOKIE_PREFIX + "state-"):
            login = {key: request.get_param(key) for key in LOGIN_FIELDS if request.get_param(key)}
            store.put(f"login:{name.removeprefix(COOKIE_PREFIX)}", login, STATE_SECONDS)
    return location.get_redirect_url(), cookies


def validated_launch(store: Store, request: LtiRequest) -> Launch:
    """The launch, every check passed; else LaunchError saying which failed."""
    state = request.get_param("state")
    if not state or store.take(f"state:{state}") is None:
        raise LaunchError("the login's state is unknown, expired or used already")
    if request.cookies.get(COOKIE_PREFIX + state) is None:  # PyLTI1p3 would refuse it: "State not found"
        raise CookieLost(store.take(f"login:{state}") or {})
    launch = Launch(request, ToolConf(store), Sessions(store), Cookies(request, store))
    launch.set_jwt_verify_options({"verify_aud": False, "require": ["exp", "iat", "nonce"]})
    try:
        launch.validate()
        body = launch.get_launch_data()
    except LtiException as problem:
        raise LaunchError(str(problem)) from None
    except Exception as problem:  # noqa: BLE001 - the library raises plain errors on some malformed tokens
        raise LaunchError(f"a malformed launch: {type(problem).__name__}") from None
    audience = body.get("aud")
    if isinstance(audience, list) and len(audience) > 1 and body.get("azp") != launch.get_client_id():
        raise LaunchError("the token names several audiences and not us as its azp")
    return launch


def restored_launch(store: Store, launch_id: str) -> Launch:
    request = LtiRequest({}, {}, True)
    try:
        return Launch.from_cache(launch_id, request, ToolConf(store), session_service=Sessions(store),
                                 cookie_service=Cookies(request, store))
    except LtiException as problem:
        raise LaunchError(str(problem)) from None
