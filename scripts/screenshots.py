"""Take the course's screenshots again, in Debian's chromium (/usr/bin/chromium), by playwright.

    notebooks/images/chat.png                  the chat page after its answer (notebook 07)
    notebooks/images/chat-zh.png               the same in Chinese (?lang=zh), for lesson 07 in zh
    teaching/screenshots/chat-mid-stream.png   the chat page while the tool input streams
    teaching/screenshots/stepper-step87-light.png, stepper-step87-dark.png
                                               lesson 02's stepper at step 87 (7-byte chunks),
                                               light and dark

The chat page answers the course fixture through the app and the local replay server;
the stepper is its static page, the same panels and colours as the widget in JupyterLab
(whose Light and Dark themes it follows). Each image is cropped to what it shows and
stored with at most 256 colours (a few tens of kB).

    .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import Locator, expect, sync_playwright

from streaming_lib.chat import ChatServer
from streaming_lib.tools.stepper import StreamStepper

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK_CHAT = REPO / "notebooks" / "images" / "chat.png"
NOTEBOOK_CHAT_ZH = REPO / "notebooks" / "images" / "chat-zh.png"
SHOTS = REPO / "teaching" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]
STEP = 87  # lesson 02: "Stop at step 87"
MID_STREAM_CHARS = 20  # the chat page is shot once this much of the tool input has arrived


def save(element: Locator, path: Path) -> None:
    """A screenshot of `element` at `path`, in a palette of 256 colours."""
    image = Image.open(io.BytesIO(element.screenshot())).convert("RGB")
    path.parent.mkdir(parents=True, exist_ok=True)
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        path, optimize=True
    )
    print(f"wrote {path.relative_to(REPO)} ({path.stat().st_size // 1024} kB)")


def main() -> None:
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as scratch:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page_path = Path(scratch) / "stepper.html"
        StreamStepper("fixture", chunk_size=7, panels=("bytes", "lines")).to_html(page_path)
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport={"width": 1100, "height": 800}, color_scheme=scheme)
            page.goto(page_path.as_uri())
            page.locator(".ss-slider").evaluate(
                "(s, k) => { s.value = k; s.dispatchEvent(new Event('input')); }", STEP
            )
            expect(page.locator(".ss-status")).to_contain_text(f"step {STEP} / ")
            save(page.locator(".ss-static"), SHOTS / f"stepper-step{STEP}-{scheme}.png")
            page.close()

        # An event a second: the page is still while it is shot.
        with ChatServer("fixture", pace=1.0, environ={}) as chat:
            page = browser.new_page(viewport={"width": 820, "height": 700})
            page.goto(chat.url + "/")
            expect(page.locator("#source")).to_be_visible()
            page.get_by_role("button", name="Send").click()
            page.wait_for_function(
                f"(document.querySelector('.tool-input') || {{}}).textContent?.length >= "
                f"{MID_STREAM_CHARS}",
                timeout=60_000,
            )
            save(page.locator("main"), SHOTS / "chat-mid-stream.png")
            page.close()
        # The answer, then the same in Chinese: (query, the Send button, the status at the end).
        done = {
            "": ("Send", "done: stop_reason tool_use"),
            "?lang=zh": ("发送", "完成：stop_reason 为 tool_use"),
        }
        for query, path in (("", NOTEBOOK_CHAT), ("?lang=zh", NOTEBOOK_CHAT_ZH)):
            send, status = done[query]
            with ChatServer("fixture", pace=0.02, environ={}) as chat:
                page = browser.new_page(viewport={"width": 820, "height": 700})
                page.goto(chat.url + "/" + query)
                page.get_by_role("button", name=send).click()
                expect(page.locator("#status")).to_have_text(status, timeout=15_000)
                save(page.locator("main"), path)
                page.close()
        browser.close()


if __name__ == "__main__":
    main()
