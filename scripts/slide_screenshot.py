"""Take the screenshot of a code slide shown in TEACHING.md:
teaching/screenshots/slide_code.png, lesson 02's `class LineDecoder:`, whose long lines wrap.

The deck is built by scripts/slides.py and opened offline: served on 127.0.0.1,
every request elsewhere blocked, in Debian's chromium (/usr/bin/chromium) driven by
playwright, at 1280x800 as a projector shows it. Needs the local copies of what a deck
loads (`python scripts/slides.py vendor`).

    .venv/bin/python scripts/slide_screenshot.py

tests/test_slides.py opens the decks with the same helpers (`served`, `Offline`).
"""

from __future__ import annotations

import io
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PIL import Image
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from streaming_lib.lab.threaded import ThreadedServer

sys.path.insert(0, str(Path(__file__).resolve().parent))
import slides  # noqa: E402  (scripts/slides.py, beside this file)

OUT = slides.ROOT / "teaching" / "screenshots" / "slide_code.png"
DECK, CODE = "02_chunks_to_lines", "class LineDecoder:"  # the slide it shows
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """`folder` over HTTP on 127.0.0.1, at a free port, while the block runs: its URL.
    (Starlette's static files, by the course's threaded uvicorn server; a link in `folder`,
    as to the local copies, is followed.)"""
    files = StaticFiles(directory=folder, follow_symlink=True)
    with ThreadedServer(Starlette(routes=[Mount("/", files)])) as server:  # a 404 is quiet
        yield server.url


class Offline:
    """A playwright page kept to 127.0.0.1, that opens decks: every request elsewhere is
    aborted and listed in `blocked`; every load that fails (those, and an answer of HTTP
    4xx or 5xx: a file missing) is listed in `failed`."""

    QUIET = 0.5  # seconds with no request under way: the deck has loaded what it loads

    def __init__(self, page: Any) -> None:
        self.page = page
        self.blocked: list[str] = []
        self.failed: list[str] = []
        self.loading: set[Any] = set()  # the requests under way
        page.route("**/*", self._route)
        page.on("request", lambda request: self.loading.add(request))
        page.on("requestfinished", lambda request: self.loading.discard(request))
        page.on("requestfailed", self._failed)
        page.on("response", self._answered)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if re.match(r"(https?|wss?)://127\.0\.0\.1(:\d+)?/", url) or url.startswith("data:"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("blockedbyclient")

    def _failed(self, request: Any) -> None:
        self.loading.discard(request)
        self.failed.append(request.url)

    def _answered(self, response: Any) -> None:
        if not response.ok:
            self.failed.append(f"{response.url} (HTTP {response.status})")

    def open(self, url: str, reload: bool = False) -> None:
        """Open `url` (a deck), or go there and load it again, and wait until reveal.js runs
        and no request has been under way for QUIET seconds (leaving sooner would cut loads
        short: failed loads). TimeoutError after 30 seconds."""
        self.page.goto(url)
        if reload:
            self.page.reload()
        self.page.wait_for_selector(".reveal.ready")
        deadline, quiet_since = time.monotonic() + 30, time.monotonic()
        while time.monotonic() - quiet_since < self.QUIET:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} still loads {[r.url for r in self.loading]}")
            self.page.wait_for_timeout(100)  # playwright's events arrive while it waits
            if self.loading:
                quiet_since = time.monotonic()

    def show(self, deck_url: str, selector: str, text: str = "") -> str:
        """Open the deck at `deck_url` at its first slide that holds an element matching
        `selector` whose text holds `text`, with everything the deck loads loaded; the
        slide's address "h/v" (reveal's indices: a slide, and a slide below it).
        LookupError if no slide holds one."""
        self.open(deck_url)
        found = self.page.evaluate(ADDRESS_OF, [selector, text])
        if found is None:
            raise LookupError(f"no slide of {deck_url} holds {selector} with {text!r}")
        self.open(f"{deck_url}#/{found}", reload=True)  # no slide transition under way
        return str(found)


# JavaScript: the address "h/v" of the first slide holding an element that matches the
# selector with the text in its own; null if none does.
ADDRESS_OF = """([selector, text]) => {
    const top = Array.from(document.querySelectorAll(".reveal .slides > section"));
    for (const [h, section] of top.entries()) {
        const below = Array.from(section.querySelectorAll(":scope > section"));
        for (const [v, slide] of (below.length ? below : [section]).entries()) {
            const found = Array.from(slide.querySelectorAll(selector));
            if (found.some((element) => element.textContent.includes(text))) return `${h}/${v}`;
        }
    }
    return null;
}"""


def main(target: Path = OUT, vendor: Path = slides.VENDOR) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        out = Path(scratch)
        (out / "vendor").symlink_to(vendor.resolve())  # served beside the deck, as built
        (deck,) = slides.build(out / "vendor", out, only=[DECK], editions=("en",))
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            offline = Offline(page)
            with served(out) as url:
                offline.show(f"{url}/{deck.name}", ".jp-CodeCell", CODE)
            if offline.blocked or offline.failed:
                raise SystemExit(f"blocked {offline.blocked}, failed {offline.failed}")
            shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
        finally:
            browser.close()
    target.parent.mkdir(parents=True, exist_ok=True)
    # 128 colours, picked from the picture: the text as sharp, the file a third the size.
    shot.quantize(128, dither=Image.Dither.NONE).save(target, optimize=True)
    print(f"wrote {target.relative_to(slides.ROOT)}")


if __name__ == "__main__":
    main()
