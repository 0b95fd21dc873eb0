"""The course's website in a real browser: lesson 02's page in both editions, served on
127.0.0.1, its stepper moved with the keyboard and its slider, its Chinese drawn in real glyphs.

Every request to another host is blocked, and none may fail: the pages need no CDN, no font
from the web, no kernel. Needs Debian's chromium and the playwright package (as
test_stepper_browser.py); the site is the one test_site.py builds (once per session).
"""

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from test_site import built_site, pages_of
from test_stepper_browser import (
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    cjk_font_missing,
    glyphs_drawn,
    missing,
)

pytestmark = pytest.mark.browser

if missing():
    pytest.skip(missing(), allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
LESSON = {"en": "notebooks/02_chunks_to_lines.html", "zh": "notebooks/zh/02_chunks_to_lines.html"}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # no line per request
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The built site over HTTP on 127.0.0.1; yields its base URL."""
    site: Path = built_site(tmp_path_factory)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def page():
    """A page where any request to another host than 127.0.0.1 is blocked; `page.failed` lists
    every load that failed (blocked, refused, or an HTTP error)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            page.failed = []

            def only_local(route):
                if urlsplit(route.request.url).hostname == "127.0.0.1":
                    route.continue_()
                else:
                    route.abort()

            page.route("**/*", only_local)
            page.on("requestfailed", lambda request: page.failed.append(request.url))
            page.on(
                "response",
                lambda response: response.status >= 400 and page.failed.append(response.url),
            )
            yield page
        finally:
            browser.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lesson_02_s_stepper_moves_on_its_page_with_the_keyboard_and_the_slider(served, page, lang):
    page.goto(served + LESSON[lang])
    stepper = page.locator(".ss-static")
    expect(stepper.locator(".ss-live")).to_be_visible()  # its script ran: no kernel needed
    status, received = (
        stepper.locator('[data-slot="status"]'),
        stepper.locator('[data-slot="bytes"]'),
    )
    before = status.inner_text()
    assert "event:" not in received.inner_text()  # step 0: nothing received yet
    slider = stepper.locator(".ss-slider")
    slider.focus()
    page.keyboard.press("ArrowRight")  # the first chunk: 7 bytes of the course fixture
    expect(slider).to_have_value("1")
    expect(status).not_to_have_text(before)
    expect(received).to_contain_text("event:")
    page.keyboard.press("End")
    expect(slider).to_have_value(slider.get_attribute("max"))
    expect(received).to_contain_text("message_stop")  # the stream's last event has arrived
    slider.evaluate("(s) => { s.value = 1; s.dispatchEvent(new Event('input')); }")
    expect(received).not_to_contain_text("message_stop")
    assert page.failed == []


def test_every_page_of_lesson_02_s_editions_loads_whole_from_127_0_0_1(served, page):
    for lang in LESSON:
        page.goto(served + LESSON[lang])
        page.wait_for_load_state("networkidle")
        twin = page.locator("a.course-twin")
        expect(twin).to_have_count(1)
    page.locator("a.course-twin").click()  # from the Chinese page back to the English one
    expect(page).to_have_url(served + LESSON["en"])
    assert page.failed == []


@pytest.mark.skipif(bool(cjk_font_missing()), reason=str(cjk_font_missing()))
def test_the_chinese_lesson_02_page_draws_its_heading_in_real_glyphs_not_boxes(served, page):
    page.goto(served + LESSON["zh"])
    heading = page.locator("main h1").first
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    chinese = [c for c in dict.fromkeys(heading.inner_text()) if "\u4e00" <= c <= "\u9fff"][:4]
    assert len(chinese) == 4, heading.inner_text()
    drawn = glyphs_drawn(heading, chinese)  # as test_stepper_browser.py checks JupyterLab
    assert len(set(drawn["glyphs"])) == 4, "two Chinese characters were drawn the same"
    assert drawn["box"] not in drawn["glyphs"], "a Chinese character was drawn as a box"
    assert all(0.9 <= width <= 1.1 for width in drawn["widths"]), drawn["widths"]
    assert page.failed == []


def served_pages(patterns):
    """The site's pages (paths from its root) whose sources match `patterns`, in order."""
    return [f"{page}.html" for page in pages_of(patterns)]


# Every page a class reads a lesson on: the lessons and bonus notebooks, and the READMEs.
READING = (
    "README",
    "README.zh-CN",
    "notebooks/*",
    "notebooks/bonus/*",
    "notebooks/zh/*",
    "notebooks/zh/bonus/*",
)

# JavaScript: the code and output blocks of the page's text that scroll sideways or stand out
# of its column, each as (its first line, the pixels out of sight).
CUT_OFF = """() => {
    const column = document.querySelector("article.bd-article").getBoundingClientRect();
    return Array.from(document.querySelectorAll("article.bd-article pre"))
        .map((pre) => [pre.textContent.split("\\n")[0].slice(0, 60),
                       Math.max(pre.scrollWidth - pre.clientWidth,
                                pre.getBoundingClientRect().right - column.right)])
        .filter(([, hidden]) => hidden > 1);
}"""


def test_no_code_or_output_block_of_a_lesson_page_or_the_readme_scrolls_sideways_at_1280(
    served, page
):
    pages = served_pages(READING)
    assert len(pages) > 30
    cut = {}
    for name in pages:
        page.goto(served + name)
        if hidden := page.evaluate(CUT_OFF):
            cut[name] = hidden
    assert cut == {}
    # The README's diagram of the pipeline: each line whole, none wrapped.
    page.goto(served + "README.html")
    diagram = page.locator("article.bd-article pre", has_text="PartialJSONParser").first
    lines = diagram.inner_text().count("\n") + 1
    line_height = float(diagram.evaluate("(pre) => parseFloat(getComputedStyle(pre).lineHeight)"))
    padding = diagram.evaluate(
        "(pre) => parseFloat(getComputedStyle(pre).paddingTop)"
        " + parseFloat(getComputedStyle(pre).paddingBottom)"
    )
    assert diagram.bounding_box()["height"] <= lines * line_height + padding + 4


# JavaScript: the stepper on the page: the frames drawn around it up to the text's column
# (any background or padding of its own), its columns, and where its key ends.
STEPPER_BOX = """() => {
    const root = document.querySelector(".ss-root");
    const frames = [];
    for (let box = root.parentElement; !box.matches("article"); box = box.parentElement) {
        const style = getComputedStyle(box);
        const painted = style.backgroundColor !== "rgba(0, 0, 0, 0)";
        if (painted || parseFloat(style.paddingTop) > 0 || parseFloat(style.borderTopWidth) > 0) {
            frames.push([box.className, style.backgroundColor, style.paddingTop]);
        }
    }
    const columns = getComputedStyle(root.querySelector(".ss-grid")).gridTemplateColumns;
    return {frames, columns: columns.split(" ").length,
            key: root.querySelector(".ss-legend").getBoundingClientRect().bottom,
            top: root.getBoundingClientRect().top};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_stepper_on_the_site_has_no_frame_three_columns_and_its_key_in_view(
    served, page, lang, scheme
):
    page.emulate_media(color_scheme=scheme)
    page.goto(served + LESSON[lang])
    expect(page.locator("html")).to_have_attribute("data-theme", scheme)
    stepper = page.locator(".ss-static")
    expect(stepper.locator(".ss-live")).to_be_visible()
    stepper.locator(".ss-slider").focus()
    page.keyboard.press("End")  # every panel at its fullest: the whole stream received
    page.evaluate("() => document.querySelector('.ss-root').scrollIntoView({block: 'start'})")
    box = page.evaluate(STEPPER_BOX)
    assert box["frames"] == []
    assert box["columns"] == 3
    assert box["top"] >= 0 and box["key"] <= 800  # the key in view with the stepper's top


def test_no_page_of_either_edition_logs_an_error_to_the_console(served, page):
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    for name in served_pages(READING) + [
        "index.html",
        "TEACHING.html",
        "TEACHING.zh-CN.html",
        "exercises/01_line_splitter.html",
        "solutions/zh/01_line_splitter.html",
    ]:
        page.goto(served + name)
        page.wait_for_load_state("networkidle")  # the favicon too, before the next page
    assert errors == []
    assert page.failed == []
