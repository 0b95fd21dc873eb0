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

import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from ..lab.server import DEFAULT_PACE, ReplayServer
from ..lab.settings import checked_key, shown
from ..lab.threaded import ThreadedServer
from ..language import _
from .app import HUSH, LOOPBACK_HOSTS, REAL_API, build_app, checked_upstream

HOST = "127.0.0.1"  # the app listens on this machine only, unless told otherwise
DEFAULT_PORT = 8010  # not 8000: the site and JupyterLite are served there (README)


def recording_name(fixture: str | Path | bytes) -> str:
    """How the page names the stream the replay server replays: a fixture's file name, or
    the size of a stream given as bytes.

    >>> recording_name("fixture"), recording_name("fixtures/crlf.sse"), recording_name(b"data: x")
    ('fixture.sse', 'crlf.sse', 'a stream of 7 bytes')
    """
    if isinstance(fixture, bytes):
        return f"a stream of {len(fixture)} bytes"
    return Path(fixture).name if str(fixture).endswith(".sse") else f"{Path(fixture).name}.sse"


class ChatServer:
    """The chat app on a free port (or `port`) of `host`, in a background thread.

    Use it as a context manager; inside, `.url` is `http://HOST:PORT` and
    `.replay` the local `ReplayServer` that it started (None when the upstream
    is the real API: `environ`, default `os.environ`, holds `ANTHROPIC_API_KEY`;
    `ANTHROPIC_BASE_URL` then replaces the real API's URL), `.recording` the name of
    the stream it replays (`recording_name`; None with the real API). On exit both stop.

    Raises ValueError for a fixture that cannot be read, an `ANTHROPIC_API_KEY` that is
    not printable ASCII or an `ANTHROPIC_BASE_URL` that is not an http(s) URL (a CR or
    LF at its end included), and for a `host` other than
    127.0.0.1 or localhost while the key is set (anyone who reaches the relay
    could spend it: its Origin and Host checks stop browsers, not programs); `start()` raises
    OSError if it cannot listen on `host`:`port` (see `threaded.listen`). `core` and `reader`:
    the learner's relay core and client, as `build_app` takes them (lesson 07). `lang`: the
    page's language (None: the language in use when it starts; `?lang=` on the page's URL
    still chooses another).
    """

    def __init__(
        self,
        fixture: str | Path | bytes = "fixture",
        *,
        pace: float = DEFAULT_PACE,
        host: str = HOST,
        port: int = 0,
        environ: Mapping[str, str] | None = None,
        core: Callable[[httpx.Response], AsyncIterator[bytes]] | None = None,
        reader: Callable[[], Any] | None = None,
        lang: str | None = None,
    ) -> None:
        environ = os.environ if environ is None else environ
        self.api_key = environ.get("ANTHROPIC_API_KEY") or None
        self.replay = None
        self.recording = None if self.api_key else recording_name(fixture)
        if not self.api_key:
            try:
                self.replay = ReplayServer(fixture, pace=pace)
            except (OSError, ValueError) as error:
                what = "the stream given" if isinstance(fixture, bytes) else fixture
                raise ValueError(f"cannot replay {what}: {error}") from None
        # The real API's URL; the local replay server's is known once it has started.
        self.upstream = ""
        if self.api_key:
            checked_key(self.api_key)
            url = environ.get("ANTHROPIC_BASE_URL") or REAL_API
            try:
                self.upstream = checked_upstream(url)
            except ValueError as error:
                raise ValueError(f"ANTHROPIC_BASE_URL: {error}") from None
        if self.api_key and host not in LOOPBACK_HOSTS:
            # The page's Origin and Host checks stop other sites' pages, not a program
            # on another machine that sends the right headers: it would spend the key.
            raise ValueError(
                f"with ANTHROPIC_API_KEY set the relay spends your key for whoever reaches it,"
                f" so it listens only on {' or '.join(LOOPBACK_HOSTS)}, not {host}"
            )
        self.core, self.reader = core, reader  # the learner's code, in lesson 07 (build_app)
        self.lang = lang
        self.host, self.port, self.url = host, port, ""
        self.server: ThreadedServer | None = None

    def start(self) -> ChatServer:
        if self.replay is not None:
            self.upstream = self.replay.start().url
        hosts = LOOPBACK_HOSTS if self.host in LOOPBACK_HOSTS else [*LOOPBACK_HOSTS, self.host]
        local = self.replay is not None
        app = build_app(
            self.upstream,
            api_key=self.api_key,
            faults=local,
            allowed_hosts=hosts,
            replaying=self.recording,
            core=self.core,
            reader=self.reader,
            lang=self.lang,
        )
        try:
            self.server = ThreadedServer(
                app, host=self.host, port=self.port, log_filter=HUSH
            ).start()
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
        print(_("Cannot start the chat page: {error}", error=str(error)), file=sys.stderr)
        return 2
    try:
        chat.start()
    except OSError as error:  # the port is taken, the address is not this machine's IPv4 one
        print(_("Cannot start the chat page: {error}", error=str(error)), file=sys.stderr)
        return 2
    # A Ctrl-C anywhere from here on (the banner may be the moment: a pipe gets it at the
    # flush) ends the command the same way, quietly, with status 0.
    try:
        where = (
            _("the real API ({url})", url=shown(chat.upstream))
            if chat.replay is None
            else _(
                "the replay server, replaying {recording} whatever the prompt",
                recording=chat.recording,
            )
        )
        print(
            _(
                "Chat page: {url}/  (answers from {where}). Ctrl-C stops it.",
                url=chat.url,
                where=where,
            )
        )
        if chat.replay is not None:
            print(
                _(
                    "Faults: {url}/?error_after=8  (an error mid-stream), "
                    "{url}/?drop_at=1500  (a cut stream)",
                    url=chat.url,
                )
            )
        sys.stdout.flush()
        while chat.server is not None and chat.server.running():
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        chat.stop()
    return 0
