"""Running the chat app: in a background thread (`ChatServer`), or until Ctrl-C (`serve`).

Which upstream: the local replay server, started here, unless
`ANTHROPIC_API_KEY` is set; then the real API, or `ANTHROPIC_BASE_URL` if that
is set too (the SDK's own variables). The key stays in this process.

    >>> import httpx
    >>> with ChatServer("fixture", pace=0) as chat:
    ...     origin = {"origin": chat.url}
    ...     reply = httpx.post(chat.url + "/chat", json={"prompt": "hi"}, headers=origin)
    >>> reply.status_code, reply.text.count("event: content_block_delta")
    (200, 10)
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from ..lab.server import DEFAULT_PACE, ReplayServer
from .app import HUSH, LOOPBACK_HOSTS, REAL_API, build_app

HOST = "127.0.0.1"  # the app listens on this machine only, unless told otherwise
DEFAULT_PORT = 8000


class ThreadedServer:
    """An ASGI app served by uvicorn on a free port (or `port`) of `host`, in a background thread.

    A context manager: inside, `.url` is `http://HOST:PORT`; on exit the server
    stops (open streams get 2 seconds), its thread ends and its socket is closed.
    """

    def __init__(self, app: ASGIApp, *, host: str = HOST, port: int = 0) -> None:
        self.app, self.host, self.port, self.url = app, host, port, ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ThreadedServer:
        # We bind the socket ourselves, so the port is known before uvicorn starts.
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        self.port = listener.getsockname()[1]
        self.url = f"http://{self.host}:{self.port}"
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        logging.getLogger("uvicorn.error").addFilter(HUSH)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [listener]},
            name=f"asgi-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                listener.close()
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        return self

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            self._server = self._thread = None

    def __enter__(self) -> ThreadedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class ChatServer:
    """The chat app on a free port (or `port`) of `host`, in a background thread.

    Use it as a context manager; inside, `.url` is `http://HOST:PORT` and
    `.replay` the local `ReplayServer` that it started (None when the upstream
    is the real API: `environ`, default `os.environ`, holds `ANTHROPIC_API_KEY`;
    `ANTHROPIC_BASE_URL` then replaces the real API's URL). On exit both stop.
    """

    def __init__(
        self,
        fixture: str | Path | bytes = "fixture",
        *,
        pace: float = DEFAULT_PACE,
        host: str = HOST,
        port: int = 0,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        environ = os.environ if environ is None else environ
        self.api_key = environ.get("ANTHROPIC_API_KEY") or None
        self.replay = None if self.api_key else ReplayServer(fixture, pace=pace)
        # The real API's URL; the local replay server's is known once it has started.
        self.upstream = (environ.get("ANTHROPIC_BASE_URL") or REAL_API) if self.api_key else ""
        self.host, self.port, self.url = host, port, ""
        self.server: ThreadedServer | None = None

    def start(self) -> ChatServer:
        if self.replay is not None:
            self.upstream = self.replay.start().url
        hosts = LOOPBACK_HOSTS if self.host in LOOPBACK_HOSTS else [*LOOPBACK_HOSTS, self.host]
        local = self.replay is not None
        app = build_app(self.upstream, api_key=self.api_key, faults=local, allowed_hosts=hosts)
        try:
            self.server = ThreadedServer(app, host=self.host, port=self.port).start()
        except BaseException:
            self.stop()
            raise
        self.port, self.url = self.server.port, self.server.url
        return self

    def stop(self) -> None:
        """Stop the app, then the replay server; join their threads."""
        if self.server is not None:
            self.server.stop()
        if self.replay is not None:
            self.replay.stop()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def serve(
    fixture: str | Path = "fixture",
    *,
    port: int = DEFAULT_PORT,
    pace: float = DEFAULT_PACE,
    host: str = HOST,
) -> int:
    """The `chat` command: run the chat app on `host`:`port` until Ctrl-C; returns the exit
    status."""
    try:
        chat = ChatServer(fixture, pace=pace, host=host, port=port)
    except (OSError, ValueError) as error:
        print(f"Cannot replay {fixture}: {error}", file=sys.stderr)
        return 2
    with chat:
        where = (
            f"the real API ({chat.upstream})"
            if chat.replay is None
            else f"the replay server, fixture {fixture}"
        )
        print(f"Chat page: {chat.url}/  (answers from {where}). Ctrl-C stops it.")
        if chat.replay is not None:
            print(
                f"Faults: {chat.url}/?error_after=8  (an error mid-stream), "
                f"{chat.url}/?drop_at=1500  (a cut stream)"
            )
        sys.stdout.flush()
        try:
            while chat.server is not None and chat.server.running():
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
    return 0
