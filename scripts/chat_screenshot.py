"""Take the screenshot of the chat page shown in notebook 07: notebooks/images/chat.png.

The page answers the course fixture through the app and the local replay server,
in Debian's chromium (/usr/bin/chromium) driven by playwright.

    .venv/bin/python scripts/chat_screenshot.py
"""

from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from streaming_lib.chat import ChatServer

OUT = Path(__file__).resolve().parent.parent / "notebooks" / "images" / "chat.png"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with ChatServer("fixture", pace=0.02, environ={}) as chat, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 820, "height": 600})
        page.goto(chat.url + "/")
        page.get_by_role("button", name="Send").click()
        expect(page.locator("#status")).to_have_text("done: stop_reason tool_use", timeout=15_000)
        page.locator("main").screenshot(path=str(OUT))
        browser.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
