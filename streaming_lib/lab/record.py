"""The record command: save one real Messages API stream, byte for byte, as a fixture.

    ANTHROPIC_API_KEY=... python -m streaming_lib record --out fixtures/mine.sse \\
        [--model M] [--prompt TEXT]

It sends one small streaming request with `httpx` and writes the response
body, exactly as it came off the wire, to `--out`. Only the body: never the
request, its headers, or the key (a server quoting the key in its stream gets
REDACTED written instead). A body over `files.MAX_STREAM_BYTES`, which no
command could read back, is not saved; of an error body only the first
MAX_ERROR_BYTES are read (`api.error_body`). Without `ANTHROPIC_API_KEY` it says so and
exits with status 2. `ANTHROPIC_BASE_URL` points it elsewhere (for example at
the replay server, to try it offline).

Not run by the tests against the real API (they never have a key); they run
`record()` against an `httpx.MockTransport`:

    >>> import httpx, io
    >>> reply = httpx.Response(200, content=b"event: ping\\n\\n")
    >>> mock = httpx.MockTransport(lambda request: reply)
    >>> out = io.BytesIO()
    >>> record(out, api_key="sk-test", client=httpx.Client(transport=mock))
    200
    >>> out.getvalue()
    b'event: ping\\n\\n'

Deliberately not handled: retries, tools, anything but one user message.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO

import httpx

from ..language import _
from ..partial_json_strings import SURROGATE
from ..tools.files import MAX_STREAM_BYTES, checked_output
from .api import API_VERSION, DEFAULT_MODEL, error_body
from .network import DEFAULT_TIMEOUT
from .settings import StreamRedactor, checked_key, checked_upstream, redacted

DEFAULT_PROMPT = "In two sentences, why do LLM APIs stream their answers?"
API_URL = "https://api.anthropic.com"


def record(
    out: BinaryIO,
    *,
    api_key: str,
    model: str = DEFAULT_MODEL,
    prompt: str = DEFAULT_PROMPT,
    max_tokens: int = 256,
    base_url: str = API_URL,
    client: httpx.Client | None = None,
    limit: int = MAX_STREAM_BYTES,
) -> int:
    """Stream one answer and write its body bytes to `out`; return the HTTP status.

    On a status other than 200 nothing is written (the error body is not a stream).
    Raises ValueError once the body is over `limit` bytes (what was written
    is then of no use: `run` deletes it).
    """
    headers = {
        "x-api-key": api_key,
        "anthropic-version": API_VERSION,
        "accept-encoding": "identity",  # the bytes as the API wrote them, not gzipped
    }
    body = {
        "model": model,
        "max_tokens": max_tokens,
        "stream": True,
        "messages": [{"role": "user", "content": prompt}],
    }
    client = (
        client if client is not None else httpx.Client(timeout=DEFAULT_TIMEOUT)
    )  # the SDK's: a model may think for minutes
    with (
        client,
        client.stream(
            "POST", base_url.rstrip("/") + "/v1/messages", headers=headers, json=body
        ) as response,
    ):
        if response.status_code != 200:
            text = error_body(response).decode("utf-8", "replace")[:500]
            said = redacted(text, api_key).replace("\n", " ")  # one line, no key
            print(f"HTTP {response.status_code}: {said}", file=sys.stderr)
            return response.status_code
        # Only the body is written; the request and both sets of headers stay
        # in memory. `iter_bytes` undoes a content encoding, should the server
        # compress despite `identity`: a fixture holds the SSE bytes themselves.
        redactor, size = StreamRedactor(api_key), 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                raise ValueError(
                    _("the stream is over {limit} bytes: too large for a fixture", limit=limit)
                )
            out.write(redactor.feed(chunk))
        out.write(redactor.flush())
    return 200


def run(
    out: Path,
    *,
    model: str = DEFAULT_MODEL,
    prompt: str = DEFAULT_PROMPT,
    environ: dict[str, str] | None = None,
) -> int:
    """The `record` command: returns the exit status (0 written, 1 HTTP error or no answer,
    2 an input refused before anything was sent).

    Everything is checked before the request is sent (and paid for): the key
    and the base URL (`checked_key`, `checked_upstream`), the prompt (text, with
    no half character), and `out` (`files.checked_output`: its folder exists,
    and it is a regular file or absent). The bytes go to a new temporary file
    beside `out`, which replaces `out` only once the stream has ended well, and
    only if `out` is still a regular file or absent: a device, a FIFO or a link
    at that name is never replaced. Each failure is one line on stderr.
    """
    environ = dict(os.environ) if environ is None else environ
    api_key = environ.get("ANTHROPIC_API_KEY", "")
    if not api_key:
        print(
            "record needs a real API key: set ANTHROPIC_API_KEY (nothing was sent, nothing "
            "written).",
            file=sys.stderr,
        )
        return 2
    try:
        checked_key(api_key)
        base_url = checked_upstream(environ.get("ANTHROPIC_BASE_URL") or API_URL)
        if SURROGATE.search(prompt) or SURROGATE.search(model):
            raise ValueError(_("the prompt or the model holds bytes that are not UTF-8 text"))
        out = checked_output(out)
    except ValueError as error:
        print(
            _("record: {error} (nothing was sent, nothing written)", error=str(error)),
            file=sys.stderr,
        )
        return 2
    try:
        descriptor, name = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".part")
    except OSError as error:
        print(
            _(
                "record: cannot write in {folder}: {why}",
                folder=str(out.parent),
                why=error.strerror or type(error).__name__,
            ),
            file=sys.stderr,
        )
        return 2
    partial = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as file:
            status = record(file, api_key=api_key, model=model, prompt=prompt, base_url=base_url)
        if status == 200:
            checked_output(out)  # still a regular file, or nothing, just before it is replaced
            partial.replace(out)
    except (httpx.HTTPError, OSError, ValueError) as error:
        partial.unlink(missing_ok=True)
        why = redacted(str(error), api_key) or type(error).__name__
        print(_("record: no stream was saved: {why}", why=why), file=sys.stderr)
        return 1
    except BaseException:  # Ctrl-C: no half fixture left behind, and the caller says so
        partial.unlink(missing_ok=True)
        raise
    if status != 200:
        partial.unlink(missing_ok=True)
        return 1
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    return 0
