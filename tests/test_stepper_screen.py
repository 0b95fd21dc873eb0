"""The stepper as a class sees it on a projector: every colour readable, every key row in view.

Contrast is measured, not assumed: for every text node the stepper draws (and each
placeholder its stylesheet writes), the browser's computed colour against the effective
background behind it (each background and opacity blended from the page's root down), by
WCAG 2's formula; AA asks 4.5:1 for text. It is measured in JupyterLab's Light and Dark
themes (the widget of lesson 02 at the step the lesson stops at) and on the static page
in light and dark (`prefers-color-scheme`, emulated).

A panel grows with what it holds, so its key row (the chunk, "lines out", the verdict,
stop_reason) is never clipped by a box that scrolls, and it sits within a screen's height
of its panel's title: at 1280×800, and at 150% zoom (the same screen at a device scale of
1.5, as a projector user sets it).

Runs as test_stepper_browser.py does (Debian's chromium, playwright, JupyterLab on 127.0.0.1).
"""

import re

import pytest
from test_stepper_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    TOKEN,
    missing,
    serve_lab,
    write_notebook,
)

from streaming_lib.tools.i18n import STEPPER
from streaming_lib.tools.stepper import EVENT_BY_EVENT, StreamStepper
from streaming_lib.tools.stepper.html import legend

pytestmark = pytest.mark.browser

if missing():
    pytest.skip(missing(), allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

AA = 4.5  # WCAG 2.x, 1.4.3 Contrast (Minimum): text, 4.5:1
SCREEN = {"width": 1280, "height": 800}  # a projector
ZOOMS = (1, 1.5)  # 100% and 150%: the CSS viewport shrinks by the scale

LESSON_02 = {"source": "fixture", "chunk_size": 7, "panels": ("bytes", "lines")}
STEP_87 = 87  # lesson 02: "Stop at step 87", a chunk ending inside 找
LESSON_03_ZH = {
    "source": "fixture",
    "chunk_size": EVENT_BY_EVENT,
    "panels": ("events", "content", "tools", "stop"),
    "lang": "zh",
}

# For every text node under `root` (and every ::before placeholder): its contrast ratio,
# colour and effective background; one row per distinct pair, the worst first.
CONTRAST = r"""(root) => {
  const parse = (css) => {
    const m = css.match(/rgba?\(([^)]*)\)/);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, alpha, bottom) =>
    [0, 1, 2].map((i) => top[i] * alpha + bottom[i] * (1 - alpha));
  const luminance = (rgb) => {  // WCAG 2's relative luminance of an sRGB colour
    const c = rgb.map((v) => {
      v /= 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const ratio = (a, b) => {
    const [light, dark] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (light + 0.05) / (dark + 0.05);
  };
  // Text in `style` on `element`: over every background from the root down, then each
  // group with an opacity below 1 composited over what was behind it.
  const measure = (element, style) => {
    const chain = [];
    for (let e = element; e; e = e.parentElement) chain.unshift(e);
    let backdrop = [255, 255, 255];  // the canvas
    const groups = [];
    for (const e of chain) {
      const computed = getComputedStyle(e);
      if (Number(computed.opacity) < 1) groups.push([Number(computed.opacity), backdrop]);
      const bg = parse(computed.backgroundColor);
      if (bg && bg[3] > 0) backdrop = over(bg, bg[3], backdrop);
    }
    const fg = parse(style.color);
    let text = over(fg, fg[3], backdrop), behind = backdrop;
    for (const [opacity, under] of groups.reverse()) {
      text = over(text, opacity, under);
      behind = over(behind, opacity, under);
    }
    return [ratio(text, behind), style.color, "rgb(" + behind.map(Math.round).join(", ") + ")"];
  };
  const rows = new Map();
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const add = (element, text, [contrast, colour, background]) => {
    const pair = colour + " on " + background;
    if (!rows.has(pair)) {
      rows.set(pair, [Math.round(contrast * 100) / 100, pair, text.trim().slice(0, 40)]);
    }
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || element.closest("script, style, option")) continue;
    if (!shown(element)) continue;
    add(element, node.textContent, measure(element, getComputedStyle(element)));
  }
  for (const element of root.querySelectorAll("*")) {
    const before = getComputedStyle(element, "::before");
    if (!["none", "normal", ""].includes(before.content) && shown(element)) {
      add(element, before.content, measure(element, before));
    }
  }
  return Array.from(rows.values()).sort((a, b) => a[0] - b[0]);
}"""

# Each panel's key row: what a reader must see at every step.
KEY_ROWS = {
    "bytes": '[data-slot="bytes"] mark.ss-chunk',  # this step's chunk
    "lines": '[data-slot="lines"] > .ss-sub',  # "lines out"
    "sse": '[data-slot="sse"] > .ss-row',  # event type, data lines, last event ID, retry
    "events": '[data-slot="events"] > :last-child',  # the newest event
    "content": '[data-slot="content"] .ss-block-head',  # each block: its type, open or stopped
    "tools": '[data-slot="tools"] .ss-block > .ss-row:last-child',  # may it run? the verdict
    "stop": '[data-slot="stop"] > .ss-row',  # stop_reason, message_stop
}

# For each key row under `root`: why it is out of view (a box that scrolls clips it, or
# it is farther below its panel's title than the screen is high); [] when all are in view.
OUT_OF_VIEW = r"""([root, keys, height]) => {
  const problems = [];
  for (const [name, selector] of Object.entries(keys)) {
    const slot = root.querySelector(`[data-slot="${name}"]`);
    if (!slot) continue;
    const panel = slot.closest(".ss-panel");
    const title = panel.querySelector("h4").getBoundingClientRect().top;
    for (const row of slot.parentElement.querySelectorAll(selector)) {
      const rects = row.getClientRects();
      if (!rects.length) continue;
      // A chunk longer than the bytes panel's window shows its end: the newest bytes.
      const box = name === "bytes" ? rects[rects.length - 1] : row.getBoundingClientRect();
      const said = `${name}: ${JSON.stringify(row.textContent.slice(0, 30))}`;
      for (let e = row.parentElement; e !== panel; e = e.parentElement) {
        const clip = e.getBoundingClientRect();
        const clipped = box.top < clip.top - 1 || box.bottom > clip.bottom + 1;
        if (getComputedStyle(e).overflowY !== "visible" && clipped) {
          problems.push(`${said} is hidden in a box that scrolls (${e.className})`);
        }
      }
      // Within a screen's height of its panel's title, or of its own block's head when the
      // panel holds several blocks (two tool calls: the reader scrolls to the second).
      const block = row.closest(".ss-block");
      const top = block && block.previousElementSibling ? block.getBoundingClientRect().top : title;
      if (box.bottom - top > height) {
        problems.push(`${said} is ${Math.round(box.bottom - top)} px below its title`);
      }
    }
  }
  return problems;
}"""


def unreadable(rows):
    """The rows of CONTRAST below AA."""
    return [row for row in rows if row[0] < AA]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def static_page(browser, tmp_path, stepper, *, scale=1, scheme="light"):
    """`stepper`'s static page open in a new page on SCREEN at `scale`, in `scheme`."""
    path = tmp_path / f"stepper-{id(stepper)}.html"
    if not path.exists():
        stepper.to_html(path)
    viewport = {key: round(value / scale) for key, value in SCREEN.items()}
    page = browser.new_page(viewport=viewport, device_scale_factor=scale, color_scheme=scheme)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(path.as_uri())
    return page


def go_to(page, step):
    page.locator(".ss-slider").evaluate(
        "(s, k) => { s.value = k; s.dispatchEvent(new Event('input')); }", step
    )
    expect(page.locator(".ss-status")).to_contain_text(f" {step} / ")


# Streams that reach every mark the panels draw: an open block, JSON not parsed yet, a
# broken tool input, an error, a comment, skipped events, a retry, a cut character; on
# every panel but the bytes (lesson 02's stepper above has it, and its thousands of
# tokens make each measure slow).
MARKED = [
    "fixture",
    "error_mid_stream",
    "bad_tool_json",
    "sse_fields",
    "unknown_types",
    "truncated",
]
NOT_BYTES = ("lines", "sse", "events", "content", "tools", "stop")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_colour_pair_on_the_static_page_reaches_aa_in_light_and_in_dark(
    browser, tmp_path, scheme
):
    lesson = StreamStepper(**LESSON_02)
    page = static_page(browser, tmp_path, lesson, scheme=scheme)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert (background == "rgb(255, 255, 255)") == (scheme == "light"), background  # it follows
    for step in (0, 1, STEP_87, 88, 89, len(lesson.frames) - 1):
        go_to(page, step)
        rows = page.locator(".ss-static").evaluate(CONTRAST)
        assert len(rows) >= 5 and not unreadable(rows), (step, unreadable(rows))
    page.close()
    for name in MARKED:
        stepper = StreamStepper(name, chunk_size=EVENT_BY_EVENT, panels=NOT_BYTES)
        page = static_page(browser, tmp_path, stepper, scheme=scheme)
        for step in range(len(stepper.frames)):
            go_to(page, step)
            rows = page.locator(".ss-static").evaluate(CONTRAST)
            assert not unreadable(rows), (name, step, unreadable(rows))
        page.close()


@pytest.mark.parametrize("scale", ZOOMS)
def test_each_panels_key_row_is_in_view_on_a_projector_at_every_step(browser, tmp_path, scale):
    height = round(SCREEN["height"] / scale)
    for options, steps in (
        (LESSON_02, [*range(0, 338, 7), STEP_87, 88, 89, 337]),
        (LESSON_03_ZH, None),
        ({"source": "fixture", "chunk_size": 64}, None),
        ({"source": "two_tools", "chunk_size": EVENT_BY_EVENT}, None),
    ):
        stepper = StreamStepper(**options)
        page = static_page(browser, tmp_path, stepper, scale=scale)
        for step in steps or range(len(stepper.frames)):
            go_to(page, step)
            root = page.locator(".ss-static").element_handle()
            assert page.evaluate(OUT_OF_VIEW, [root, KEY_ROWS, height]) == [], (options, step)
        page.close()


def test_the_last_step_of_the_chinese_event_stepper_shows_panel_6s_verdict(browser, tmp_path):
    stepper = StreamStepper(**LESSON_03_ZH)
    verdict = STEPPER["zh"]["yes"]
    for scale in ZOOMS:
        page = static_page(browser, tmp_path, stepper, scale=scale)
        page.locator(".ss-slider").press("End")
        row = page.locator('[data-slot="tools"] .ss-row').last
        expect(row).to_contain_text(verdict)
        row.scroll_into_view_if_needed()
        expect(row).to_be_in_viewport(ratio=1)
        page.close()


def test_panel_subtitles_and_every_other_text_are_at_least_14_px(browser, tmp_path):
    page = static_page(browser, tmp_path, StreamStepper("fixture", chunk_size=7))
    go_to(page, STEP_87)
    sizes = page.locator(".ss-static").evaluate(
        """(root) => Array.from(root.querySelectorAll("*"))
            .filter((e) => e.getClientRects().length && Array.from(e.childNodes)
                .some((n) => n.nodeType === 3 && n.textContent.trim()))
            .map((e) => [parseFloat(getComputedStyle(e).fontSize), e.textContent.slice(0, 20)])
            .filter(([size]) => size < 14)"""
    )
    assert sizes == []
    subtitle = page.locator(".ss-panel h4 small").first
    assert float(subtitle.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 14


def test_the_legend_explains_only_the_marks_the_panels_shown_can_draw():
    say = STEPPER["en"]
    bytes_words = (say["legend_chunk"], say["legend_escape"], say["legend_split"])
    everything = legend("en")
    assert all(words in everything for words in (*bytes_words, say["legend_json"]))
    events = legend("en", panels=("events", "content", "tools", "stop"))
    assert not any(words in events for words in bytes_words)
    assert say["legend_json"] in events and say["legend_new"] in events
    assert say["legend_json"] not in legend("en", panels=("bytes", "lines"))
    assert legend("en", panels=("content", "stop")) == ""  # nothing to explain


# -- in JupyterLab: the lesson's widget, in both themes ---------------------------------------


@pytest.fixture
def lab(tmp_path):
    """JupyterLab with a notebook of two steppers: lesson 02's, and lesson 03's in Chinese."""
    root = tmp_path / "root"
    root.mkdir()
    write_notebook(
        root / "lessons.ipynb",
        "from streaming_lib.tools.stepper import StreamStepper\n"
        f"StreamStepper('fixture', chunk_size=7, panels={LESSON_02['panels']!r})",
        f"StreamStepper('fixture', chunk_size='event', panels={LESSON_03_ZH['panels']!r},"
        " lang='zh')",
    )
    yield from serve_lab(root, tmp_path)


SPEED_TEXT_FITS = """(select) => {
    // The chosen speed's words, in the select's font, against the room inside it (less
    // its padding and the arrow, about 20 px).
    const style = getComputedStyle(select);
    const context = document.createElement("canvas").getContext("2d");
    context.font = style.font;
    const text = context.measureText(select.options[select.selectedIndex].text).width;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const room = select.clientWidth - padding - 20;
    return [text, room];
}"""


def test_lesson_02s_widget_in_jupyterlab_is_readable_in_light_and_dark_at_step_87(lab, browser):
    page = browser.new_page(viewport=SCREEN)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"http://127.0.0.1:{lab}/lab/tree/lessons.ipynb?token={TOKEN}")
    status_bar = page.locator("#jp-main-statusbar")
    expect(status_bar.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle"))).to_be_visible(
        timeout=60_000
    )
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    lesson, chinese = page.locator(".ss-stepper").nth(0), page.locator(".ss-stepper").nth(1)
    status = lesson.locator('[data-slot="status"]')
    expect(status).to_contain_text("step 0 / 337", timeout=60_000)

    # The speed menu shows its choice whole ("normal", "正常"), in both languages.
    for stepper in (lesson, chinese):
        text, room = stepper.locator(".widget-dropdown select").evaluate(SPEED_TEXT_FITS)
        assert text <= room, (text, room)

    # Step 87 with the buttons and the keyboard, as a teacher would get there: each press
    # waits for the step it makes to be shown, so none lands while the kernel still answers
    # the one before (its answer would set the slider back, and that press would be lost).
    def shown_step(step):
        expect(status).to_contain_text(re.compile(rf"\bstep {step} / 337\b"), timeout=TIMEOUT_MS)

    for tens in range(1, STEP_87 // 10 + 1):
        lesson.get_by_role("button", name="+10").click()
        shown_step(10 * tens)
    handle = lesson.locator(".noUi-handle")
    handle.focus()
    for step in range(STEP_87 // 10 * 10 + 1, STEP_87 + 1):
        handle.press("ArrowRight")
        shown_step(step)
    expect(status).to_contain_text(f"step {STEP_87} / 337")
    expect(lesson.locator('[data-slot="pending"] .ss-split')).to_have_text("\\xe6\\x89")
    chinese.locator(".noUi-handle").focus()
    chinese.locator(".noUi-handle").press("End")
    expect(chinese.locator('[data-slot="stop"]')).to_contain_text("tool_use")

    for theme in ("Light", "Dark"):
        if theme == "Dark":
            page.keyboard.press("Control+Shift+C")  # the command palette
            palette = page.locator("#command-palette input")
            palette.fill("Use Theme: JupyterLab Dark")
            palette.press("Enter")
            expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
            page.wait_for_function(
                "getComputedStyle(document.querySelector('.ss-panel')).backgroundColor"
                " !== 'rgb(255, 255, 255)'"
            )
        for stepper in (lesson, chinese):
            rows = stepper.locator(".ss-root").evaluate(CONTRAST)
            heading = stepper.locator(".widget-html").first.evaluate(CONTRAST)
            assert len(rows) >= 5 and not unreadable(rows + heading), (theme, unreadable(rows))
            root = stepper.locator(".ss-root").element_handle()
            assert page.evaluate(OUT_OF_VIEW, [root, KEY_ROWS, SCREEN["height"]]) == [], theme
