"""Take the screenshot of a code slide shown in the teacher's section of README.md:
teaching/screenshots/slide_code.png, lesson 02's `class LineDecoder:`, whose long lines wrap.

The deck is built by scripts/slides.py and opened offline: served on 127.0.0.1,
every request elsewhere blocked, in Debian's chromium (/usr/bin/chromium) driven by
playwright, at 1280x800 as a projector shows it. Needs the local copies of what a deck
loads (`python scripts/slides.py vendor`).

    .venv/bin/python scripts/slide_screenshot.py

tests/test_slides.py opens the decks with the same helpers (`served`, `Offline`, `show`).
"""

from __future__ import annotations

import io
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PIL import Image
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
    with ThreadedServer(StaticFiles(directory=folder, follow_symlink=True)) as server:
        yield server.url


class Offline:
    """Keeps a playwright page to 127.0.0.1: every request elsewhere is aborted and listed
    in `blocked`; every load that fails (those, and an answer of HTTP 4xx or 5xx: a file
    missing) is listed in `failed`."""

    def __init__(self, page: Any) -> None:
        self.blocked: list[str] = []
        self.failed: list[str] = []
        page.route("**/*", self._route)
        page.on("requestfailed", lambda request: self.failed.append(request.url))
        page.on("response", self._answered)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if re.match(r"(https?|wss?)://127\.0\.0\.1(:\d+)?/", url) or url.startswith("data:"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("blockedbyclient")

    def _answered(self, response: Any) -> None:
        if not response.ok:
            self.failed.append(f"{response.url} (HTTP {response.status})")


def show(page: Any, deck_url: str, selector: str, text: str = "") -> str:
    """Open the deck at `deck_url` in `page` (playwright) at its first slide that holds an
    element matching `selector` whose text holds `text`, with everything the deck loads
    loaded; the slide's address "h/v" (reveal's indices: a slide, and a slide below it).
    LookupError if no slide holds one."""
    opened(page, deck_url)
    found = page.evaluate(ADDRESS_OF, [selector, text])
    if found is None:
        raise LookupError(f"no slide of {deck_url} holds {selector} with {text!r}")
    opened(page, f"{deck_url}#/{found}", reload=True)  # no slide transition under way
    return str(found)


def opened(page: Any, url: str, reload: bool = False) -> None:
    """Open `url` (a deck) in `page`, or go there and load it again, and wait until reveal.js
    runs and nothing more is loading (leaving sooner would cut loads short: failed loads)."""
    page.goto(url)
    if reload:
        page.reload()
    page.wait_for_selector(".reveal.ready")
    page.wait_for_load_state("networkidle")


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
                show(page, f"{url}/{deck.name}", ".jp-CodeCell", CODE)
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
