"""The ASGI guards around every route: a body over the limit is refused before any of it is read, and a
change sent by a page of another origin before any handler sees it."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BoundedBody:
    """413 for a body over the limit: at once by its Content-Length, or as soon as more arrives than that."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.limit:
            await _send_json(send, 413 if length.isdigit() else 400,
                             b'{"error":"the upload is over the limit"}' if length.isdigit() else
                             b'{"error":"a bad Content-Length"}')
            return
        received, started = 0, False

        async def bounded() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded, watched)
        except _TooLarge:
            if not started:
                await _send_json(send, 413, b'{"error":"the upload is over the limit"}')


class _TooLarge(HTTPException):
    """Raised from the body's reader, inside whoever reads it: a form's parser hands it on as the 413 it is
    (an exception of its own would reach Starlette's error handler, which answers 500 first)."""

    def __init__(self) -> None:
        super().__init__(413, "the upload is over the limit")


class SameOrigin:
    """A request that changes something (any method but GET and HEAD) sent by a page of another origin is
    refused with 403 before any handler reads it: a browser names the page's origin in `Origin` (and
    `Sec-Fetch-Site`), which a page cannot forge. A client that is no browser sends neither."""

    SAFE = ("GET", "HEAD", "OPTIONS")

    def __init__(self, app: ASGIApp, cross_site_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.cross_site_paths = cross_site_paths  # entry points another site posts to, vouched for otherwise

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in self.SAFE \
                and scope["path"] not in self.cross_site_paths and not _same_origin(scope):
            await _send_json(send, 403, b'{"error":"a request from a page of another site is refused"}')
            return
        await self.app(scope, receive, send)


def _same_origin(scope: Scope) -> bool:
    headers = {name: value for name, value in scope["headers"] if name in (b"origin", b"host", b"sec-fetch-site")}
    site = headers.get(b"sec-fetch-site")
    if site not in (None, b"same-origin", b"none"):  # cross-site, or same-site: another host of this site
        return False
    origin = headers.get(b"origin")
    if origin is None:
        return True
    if origin == b"null":  # a page with no referrer policy to spare, or a sandboxed frame: the browser decides
        return site == b"same-origin"
    scheme, _, host = origin.partition(b"://")
    # The host the browser asked for, compared with the page's: a reverse proxy that keeps Host (as they
    # do for virtual hosts) keeps this true behind TLS too, whatever the scheme the server sees.
    return scheme in (b"http", b"https") and bool(host) and host.lower() == headers.get(b"host", b"").lower()


async def _send_json(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
