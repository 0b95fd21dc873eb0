"""The Node.js sidebar's listing (notebooks/bonus/node/sse_text.mjs) prints the same
text as `streaming_lib` on the same bytes, whatever the chunk size.

The listing reads a fixture in chunks of N bytes, decodes them with
`TextDecoder(..., {stream: true})`, splits lines, parses SSE and prints each
`text_delta` as it comes. Its output must equal the text blocks of our
`accumulate()`'s message, joined, plus one newline. It runs under `node` (no
npm packages); without node on PATH these tests are skipped, with the reason.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from streaming_lib import StreamError, accumulate
from streaming_lib.tools.fixtures import FIXTURES_DIR, fixture_names, read_fixture

LISTING = Path(__file__).resolve().parent.parent / "notebooks" / "bonus" / "node" / "sse_text.mjs"
NODE = shutil.which("node")
# Fixtures whose SSE syntax or UTF-8 is the hard part: every chunk size matters for them.
SYNTAX = ["fixture", "crlf", "sse_fields", "cjk_emoji", "text_only", "tool_escape_split"]

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH: the Node sidebar's listing cannot run here"
)


def finished(name):
    """The fixtures our accumulator turns into a message (the others raise)."""
    try:
        accumulate(read_fixture(name))
    except StreamError:
        return False
    return True


def expected_text(name):
    message = accumulate(read_fixture(name))
    return "".join(block["text"] for block in message["content"] if block["type"] == "text")


def run_listing(*args):
    return subprocess.run(
        [NODE, str(LISTING), *map(str, args)], capture_output=True, timeout=60, check=False
    )


@pytest.mark.parametrize("size", [1, 2, 7, None], ids=lambda s: f"chunk{s or 'all'}")
@pytest.mark.parametrize("name", SYNTAX)
def test_the_listing_prints_our_text_at_every_chunk_size(name, size):
    path = FIXTURES_DIR / f"{name}.sse"
    result = run_listing(path, size or path.stat().st_size)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode("utf-8") == expected_text(name) + "\n"


@pytest.mark.parametrize("name", [n for n in fixture_names() if finished(n)])
def test_the_listing_prints_our_text_on_every_fixture_we_finish(name):
    result = run_listing(FIXTURES_DIR / f"{name}.sse", 7)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode("utf-8") == expected_text(name) + "\n"


@pytest.mark.parametrize("name", ["truncated", "error_mid_stream"])
def test_a_stream_without_message_stop_makes_the_listing_fail(name):
    result = run_listing(FIXTURES_DIR / f"{name}.sse", 7)
    assert result.returncode == 1
    assert result.stderr.decode().strip()


def test_without_arguments_the_listing_reads_the_course_fixture_in_7_byte_chunks():
    result = run_listing()
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode("utf-8") == expected_text("fixture") + "\n"
