"""An ASGI app served by uvicorn in a background thread: the replay server's and the chat app's.

    with ThreadedServer(app) as server:      # a free port of 127.0.0.1
        httpx.get(server.url + "/")

The socket is bound here (port 0: the OS picks a free one), so the port is
known before uvicorn starts and no other process can take it in between.

    >>> from starlette.applications import Starlette
    >>> server = ThreadedServer(Starlette(), port=0)
    >>> server.url, server.running()      # nothing is served before start()
    ('', False)
"""

from __future__ import annotations

import logging
import socket
import threading
import time

import uvicorn
from starlette.types import ASGIApp

from .api import HOST


class ThreadedServer:
    """`app` served by uvicorn on `port` of `host` (0: a free one), in a daemon thread.

    A context manager: inside, `.url` is `http://HOST:PORT`; on exit the server
    stops (open streams get `grace` seconds to finish), its thread ends and
    uvicorn closes the socket. `log_filter`, if given, is added to uvicorn's
    error log (to keep out the hang-ups a test makes on purpose). Raises
    RuntimeError if the server has not started within 10 seconds.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        host: str = HOST,
        port: int = 0,
        grace: float = 2,
        name: str = "asgi",
        log_filter: logging.Filter | None = None,
    ) -> None:
        self.app, self.host, self.port, self.url = app, host, port, ""
        self.grace, self.name, self.log_filter = grace, name, log_filter
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ThreadedServer:
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
            timeout_graceful_shutdown=int(self.grace),
        )
        if self.log_filter is not None:
            logging.getLogger("uvicorn.error").addFilter(self.log_filter)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [listener]},
            name=f"{self.name}-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                listener.close()
                raise RuntimeError(f"the server ({self.name}) did not start")
            time.sleep(0.01)
        return self

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Stop serving, and join the thread (nothing to do if it never started)."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            self._server = self._thread = None

    def __enter__(self) -> ThreadedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
