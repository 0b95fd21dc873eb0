"""The stepper in a real browser, driven by the keyboard: the widget in JupyterLab, the static page.

Needs Debian's chromium at /usr/bin/chromium and the `playwright` package (no
downloaded browser). JupyterLab runs on 127.0.0.1 with a token, its config and
runtime files in a temporary directory, and is stopped through its shutdown API.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from streaming_lib.lab.api import free_port
from streaming_lib.tools.fixtures import read_fixture
from streaming_lib.tools.i18n import STEPPER
from streaming_lib.tools.stepper import EVENT_BY_EVENT, StreamStepper
from streaming_lib.tools.stepper.html import byte_tokens, render_panels

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN = "stepper-browser-test"
TIMEOUT_MS = 30_000  # generous: a cold JupyterLab on a slow machine


def missing() -> str | None:
    if not CHROMIUM.exists():
        return f"needs {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "needs the playwright package (pip install playwright)"
    return None


if missing():
    pytest.skip(missing(), allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402


@pytest.fixture
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def brightness(css_color: str) -> float:
    """The mean of a CSS `rgb(r, g, b)` colour's channels, 0 (black) to 255 (white)."""
    channels = [float(part) for part in re.findall(r"[\d.]+", css_color)[:3]]
    return sum(channels) / 3


def api(port: int, path: str, method: str = "GET") -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method, headers={"Authorization": f"token {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status


def write_notebook(path: Path, *sources: str) -> None:
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for source in sources
        ],
        # Without a kernelspec, JupyterLab asks which kernel to start.
        "metadata": {
            "kernelspec": {
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
                "name": "python3",
            },
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server whose root holds `stepper.ipynb`; yields its port."""
    root = tmp_path / "root"
    root.mkdir()
    write_notebook(
        root / "stepper.ipynb",
        "from streaming_lib.tools.stepper import StreamStepper\nStreamStepper(chunk_size=7)",
        "StreamStepper.static(chunk_size=64)",
    )
    yield from serve_lab(root, tmp_path)


def serve_lab(root: Path, tmp_path: Path):
    """Run JupyterLab on the notebooks of `root` until the generator is closed; yields its port.
    Its config, runtime files and log go in `tmp_path`."""
    config, runtime = tmp_path / "config", tmp_path / "runtime"
    # No news pop-up (and no update check) covering the notebook.
    settings = config / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    env = dict(os.environ)
    env.update(
        # An isolated config and runtime; the data path stays the default, where
        # the widgets' lab extension is installed.
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_RUNTIME_DIR=str(runtime),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    port = free_port()
    with open(tmp_path / "server.log", "wb") as log:  # the server writes to its own copy
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={TOKEN}",
                f"--ServerApp.root_dir={root}",
                "--ServerApp.allow_root=True",  # containers often run as root
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if api(port, "/api/status") == 200:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    "JupyterLab did not start:\n"
                    + (tmp_path / "server.log").read_text(errors="replace")[-3000:]
                )
            time.sleep(0.2)
        yield port
    finally:
        try:
            api(port, "/api/shutdown", method="POST")  # stops its kernels too
            server.wait(timeout=20)
        except Exception:
            server.kill()
            server.wait()


def walk_to(stepper, status, target, last):
    """Move the widget `stepper` from step 0 to `target` (of `last`) as a teacher would, with
    its +10 button and the arrow key; each press waits for the step it makes to be shown, so
    none lands while the kernel still answers the one before (that answer would set the
    slider back, and the press would be lost on a busy machine)."""

    def shown(step):
        expect(status).to_contain_text(re.compile(rf"\bstep {step} / {last}\b"), timeout=TIMEOUT_MS)

    handle = stepper.locator(".noUi-handle")
    handle.focus()
    handle.press("Home")
    shown(0)
    for tens in range(1, target // 10 + 1):
        stepper.get_by_role("button", name="+10").click()
        shown(10 * tens)
    handle.focus()
    for step in range(target // 10 * 10 + 1, target + 1):
        handle.press("ArrowRight")
        shown(step)


def test_the_widget_in_jupyterlab_follows_its_slider_moved_with_the_keyboard(
    lab, browser, tmp_path
):
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"http://127.0.0.1:{lab}/lab/tree/stepper.ipynb?token={TOKEN}")

    # The status bar names the kernel once one exists; the toolbar says "idle" before that.
    status_bar = page.locator("#jp-main-statusbar")
    expect(status_bar.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle"))).to_be_visible(
        timeout=60_000
    )

    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

    stepper = page.locator(".ss-stepper")
    status = stepper.locator(".ss-status")
    steps = len(StreamStepper(chunk_size=7).frames) - 1
    expect(status).to_contain_text(f"step 0 / {steps}", timeout=TIMEOUT_MS)
    expect(stepper.locator('[data-slot="content"]')).to_contain_text(
        "no message_start yet", timeout=TIMEOUT_MS
    )

    handle = stepper.locator(".noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    expect(status).to_contain_text(f"step 1 / {steps}", timeout=TIMEOUT_MS)
    expect(stepper.locator('[data-slot="bytes"] mark.ss-chunk')).to_have_text(
        "event: ", timeout=TIMEOUT_MS
    )

    handle.press("End")
    expect(status).to_contain_text(f"step {steps} / {steps}", timeout=TIMEOUT_MS)
    expect(status).to_contain_text("the message is complete", timeout=TIMEOUT_MS)
    expect(stepper.locator('[data-slot="content"]')).to_contain_text(
        "找到原因了：add 写成了减法，我来修正。"
    )
    expect(stepper.locator('[data-slot="tools"]')).to_contain_text("✔ parses")
    expect(stepper.locator('[data-slot="stop"]')).to_contain_text("tool_use")

    # Back to a step where a chunk ends inside a character, to photograph it.
    split = next(frame.step for frame in StreamStepper(chunk_size=7).frames if frame.partial_char)
    walk_to(stepper, status, split, steps)
    half = "".join(
        f"\\x{byte:02x}" for byte in StreamStepper(chunk_size=7).frames[split].partial_char
    )
    expect(stepper.locator('[data-slot="pending"] .ss-split')).to_have_text(half)

    # The static stepper, shown by the second cell, works in the notebook too.
    static = page.locator(".ss-static")
    static.locator(".ss-slider").press("End")
    expect(static.locator(".ss-status")).to_contain_text("step 38 / 38")

    shot = tmp_path / "stepper.png"
    stepper.scroll_into_view_if_needed()
    stepper.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("STEPPER_SCREENSHOT"):  # keep a copy to look at
        shutil.copy(shot, os.environ["STEPPER_SCREENSHOT"])

    stepper.get_by_role("button", name="event by event", exact=True).click()
    expect(status).to_contain_text(
        "step 4 / ", timeout=TIMEOUT_MS
    )  # the event that holds that byte

    # Home and End follow the range of the chunk size chosen last, larger or smaller.
    for label, size in (("1 byte", 1), ("event by event", EVENT_BY_EVENT)):
        stepper.get_by_role("button", name=label, exact=True).click()
        last = len(StreamStepper(chunk_size=size).frames) - 1
        expect(status).to_contain_text(f" / {last}", timeout=TIMEOUT_MS)
        handle = stepper.locator(".noUi-handle")
        handle.focus()
        handle.press("End")
        expect(status).to_contain_text(f"step {last} / {last}", timeout=TIMEOUT_MS)
        handle.press("Home")
        expect(status).to_contain_text(f"step 0 / {last}", timeout=TIMEOUT_MS)

    # In JupyterLab's dark theme the panels turn dark too.
    light = stepper.locator(".ss-panel").first.evaluate("e => getComputedStyle(e).backgroundColor")
    page.keyboard.press("Control+Shift+C")  # the command palette
    palette = page.locator("#command-palette input")
    palette.fill("Use Theme: JupyterLab Dark")
    palette.press("Enter")
    expect(page.locator("body")).to_have_attribute(
        "data-jp-theme-light", "false", timeout=TIMEOUT_MS
    )
    page.wait_for_function(
        "(before) => getComputedStyle(document.querySelector('.ss-panel')).backgroundColor"
        " !== before",
        arg=light,
    )
    dark = stepper.locator(".ss-panel").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert brightness(dark) < 80 < 200 < brightness(light), (light, dark)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_static_page_follows_its_range_slider_and_draws_what_the_widget_draws(
    browser, tmp_path, lang
):
    raw = read_fixture()
    stepper = StreamStepper(chunk_size=7, lang=lang)
    say = STEPPER[lang]

    def step_text(step, last):
        return say["status_step"].format(step=step, last=last)

    path = tmp_path / "stepper.html"
    stepper.to_html(path, chunk_sizes=(7, 1, EVENT_BY_EVENT))
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())

    slider, status = page.locator(".ss-slider"), page.locator(".ss-status")
    steps = len(stepper.frames) - 1
    expect(status).to_contain_text(step_text(0, steps))
    expect(page.locator(".ss-noscript")).to_have_count(0)  # the script ran: its note is gone...
    expect(slider).to_be_visible()  # ...and the stepper shows
    # The labels are in the language asked for: panel titles, legend, buttons.
    expect(page.locator(".ss-panel h4").first).to_contain_text(say["panel_bytes"])
    expect(page.locator(".ss-legend")).to_contain_text(say["legend_chunk"])
    expect(page.locator(".ss-play")).to_have_text(say["play"])
    slider.focus()
    slider.press("ArrowRight")
    expect(status).to_contain_text(step_text(1, steps))
    expect(page.locator('[data-slot="bytes"] mark.ss-chunk')).to_have_text("event: ")
    slider.press("End")
    expect(status).to_contain_text(step_text(steps, steps))
    expect(page.locator('[data-slot="content"]')).to_contain_text(
        "找到原因了：add 写成了减法，我来修正。"
    )

    # The page draws every panel as the widget does (compared as text, step by step).
    tokens = byte_tokens(raw)
    for step in (0, 1, 87, 142, 250, steps):
        slider.evaluate("(s, k) => { s.value = k; s.dispatchEvent(new Event('input')); }", step)
        stepper.slider.value = step
        expected = render_panels(tokens, stepper.frame, len(stepper.frames), len(raw), lang=lang)
        drawn, wanted = page.evaluate(
            """(html) => {
                const scratch = document.createElement("div");
                scratch.innerHTML = html;
                const text = (root) => Array.from(
                    root.querySelectorAll("[data-slot]"),
                    (s) => s.dataset.slot + ": " + s.textContent,
                );
                const page = document.querySelector(".ss-static .ss-grid").parentElement;
                return [text(page), text(scratch)];
            }""",
            expected,
        )
        assert drawn == wanted, step

    # Another chunk size keeps the place in the stream.
    slider.evaluate("(s) => { s.value = 100; s.dispatchEvent(new Event('input')); }")
    received = stepper.frames[100].end
    page.locator(".ss-plan").select_option(label=say["one_byte"])
    expect(status).to_contain_text(step_text(received, len(raw) + 1))
    page.locator(".ss-play").click()
    expect(page.locator(".ss-play")).to_have_text(say["pause"])
    assert errors == []


def test_the_static_page_keeps_the_end_of_the_stream_when_the_chunk_size_changes(browser, tmp_path):
    path = tmp_path / "stepper.html"
    StreamStepper(chunk_size=7).to_html(path, chunk_sizes=(7, 64))
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(path.as_uri())
    page.locator(".ss-slider").press("End")
    page.locator(".ss-plan").select_option(label="64 bytes")
    steps = len(StreamStepper(chunk_size=64).frames) - 1
    expect(page.locator(".ss-status")).to_contain_text(f"step {steps} / {steps}")


def test_two_copies_of_a_static_stepper_both_start_when_their_scripts_run_by_eval(browser):
    # Classic Notebook inserts output HTML and then evals its scripts: no currentScript,
    # and two identical steppers share an element id.
    fragment = StreamStepper(chunk_size=7)._repr_mimebundle_()["text/html"]
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content("<div id='cells'></div>")
    page.evaluate(
        """(html) => {
            for (let i = 0; i < 2; i++) {
                const cell = document.createElement("div");
                cell.innerHTML = html;  // scripts inserted this way do not run...
                document.getElementById("cells").appendChild(cell);
                // ...until evaluated
                cell.querySelectorAll("script:not([type])")
                    .forEach((s) => window.eval(s.textContent));
            }
        }""",
        fragment,
    )
    expect(page.locator(".ss-noscript")).to_have_count(0)
    expect(page.locator(".ss-status").nth(1)).to_contain_text("step 0 / ")
    assert errors == []


def test_a_page_holding_only_some_steps_says_so_and_still_reaches_the_last(
    browser, tmp_path, monkeypatch
):
    from streaming_lib.tools.stepper import html as stepper_html

    monkeypatch.setattr(stepper_html, "PAGE_FRAMES", 20)
    stepper = StreamStepper(chunk_size=7)
    path = tmp_path / "stepper.html"
    stepper.to_html(
        path, chunk_sizes=(7, EVENT_BY_EVENT)
    )  # 338 steps thinned to 20; 20 steps kept whole
    last = len(stepper.frames) - 1
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(path.as_uri())
    note = page.locator(".ss-thin")
    expect(note).to_have_text(
        f"This page holds 20 of the stream's {last + 1} steps, evenly spaced; "
        "the stepper widget in a notebook (StreamStepper) shows every step."
    )
    page.locator(".ss-slider").press("End")
    expect(page.locator(".ss-status")).to_contain_text(f"step {last} / {last}")
    page.locator(".ss-plan").select_option(label="event by event")
    expect(note).to_be_hidden()  # every step is on the page: nothing to say


def test_the_static_page_moves_ten_steps_with_shift_and_an_arrow(browser, tmp_path):
    path = tmp_path / "stepper.html"
    StreamStepper(chunk_size=7).to_html(path)
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(path.as_uri())
    slider, status = page.locator(".ss-slider"), page.locator(".ss-status")
    slider.focus()
    slider.press("Shift+ArrowRight")
    expect(status).to_contain_text("step 10 / ")
    slider.press("ArrowRight")
    expect(status).to_contain_text("step 11 / ")
    slider.press("Shift+ArrowLeft")
    expect(status).to_contain_text("step 1 / ")
    assert page.locator(".ss-speed option").count() >= 4  # Play has a speed to choose


def test_a_cut_character_and_every_escape_stay_whole_on_a_narrow_screen(browser, tmp_path):
    stepper = StreamStepper(chunk_size=7)
    split = next(frame.step for frame in stepper.frames if frame.partial_char)
    path = tmp_path / "stepper.html"
    stepper.to_html(path)
    page = browser.new_page(viewport={"width": 700, "height": 800})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(path.as_uri())
    page.locator(".ss-slider").evaluate(
        "(s, k) => { s.value = k; s.dispatchEvent(new Event('input')); }", split
    )
    expect(page.locator(".ss-status")).to_contain_text(f"step {split} / ")
    # One box on screen per element: a line break inside one would make two.
    boxes = page.evaluate(
        """() => Array.from(document.querySelectorAll(".ss-split, .ss-esc"),
                            (e) => [e.textContent, e.getClientRects().length])"""
    )
    assert boxes and all(count == 1 for _, count in boxes), [b for b in boxes if b[1] != 1]


def test_a_lesson_stepper_with_two_panels_fits_a_1280_by_800_screen(browser, tmp_path):
    path = tmp_path / "stepper.html"
    StreamStepper(chunk_size=7, panels=("bytes", "lines")).to_html(path)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(path.as_uri())
    page.locator(".ss-slider").press("End")
    expect(page.locator(".ss-status")).to_contain_text("the message is complete")
    box = page.locator(".ss-static").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box


# -- the Chinese edition in JupyterLab ---------------------------------------------------------


def cjk_font_missing() -> str | None:
    """Why Chinese text would render as boxes here: no font for Chinese (None when there is
    one; .ci/run installs Debian's fonts-noto-cjk)."""
    if not shutil.which("fc-list"):
        return "needs fontconfig's fc-list to find a CJK font"
    fonts = subprocess.run(
        ["fc-list", ":lang=zh-cn", "family"], capture_output=True, text=True, check=False
    ).stdout
    if not fonts.strip():
        return "needs a font for Chinese (apt-get install fonts-noto-cjk)"
    return None


def glyphs_drawn(element, chars: list[str]) -> dict:
    """How `chars` are drawn in `element`'s own font: each one's pixels ("glyphs"), those of a
    code point no font has ("box"), and each one's width in ems ("widths").

    Where no font has a glyph for a character, every such character is the same box; with a
    CJK font, each Chinese character is its own glyph, a full em wide."""
    return element.evaluate(
        """(element, chars) => {
            const style = getComputedStyle(element);
            const canvas = document.createElement("canvas");
            canvas.width = canvas.height = 64;
            const context = canvas.getContext("2d");
            context.font = "40px " + style.fontFamily;
            const image = (char) => {
                context.clearRect(0, 0, 64, 64);
                context.fillText(char, 4, 48);
                return Array.from(context.getImageData(0, 0, 64, 64).data).join(",");
            };
            return {
                glyphs: chars.map(image),
                box: image("\\u{10FFFD}"),
                widths: chars.map((char) => context.measureText(char).width / 40),
            };
        }""",
        chars,
    )


HEADING = "01 · SSE 的线路格式"


@pytest.fixture
def lab_zh(tmp_path):
    """A JupyterLab server whose root holds `zh.ipynb`, a notebook with a Chinese heading
    (as the Chinese edition's lessons have); yields its port."""
    root = tmp_path / "root"
    root.mkdir()
    write_notebook(root / "zh.ipynb")
    notebook = json.loads((root / "zh.ipynb").read_text(encoding="utf-8"))
    notebook["cells"] = [
        {
            "cell_type": "markdown",
            "id": "heading",
            "metadata": {},
            "source": f"# {HEADING}\n\n流式输出是一段一段到达的：`content_block_delta`。",
        }
    ]
    (root / "zh.ipynb").write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    yield from serve_lab(root, tmp_path)


@pytest.mark.skipif(bool(cjk_font_missing()), reason=str(cjk_font_missing()))
def test_a_chinese_notebook_in_jupyterlab_shows_its_heading_in_real_glyphs_not_boxes(
    lab_zh, browser
):
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"http://127.0.0.1:{lab_zh}/lab/tree/zh.ipynb?token={TOKEN}")
    heading = page.locator(".jp-RenderedMarkdown h1")
    expect(heading).to_contain_text(HEADING, timeout=60_000)
    drawn = glyphs_drawn(heading, ["线", "路", "格", "式"])
    assert len(set(drawn["glyphs"])) == 4, "two Chinese characters were drawn the same"
    assert drawn["box"] not in drawn["glyphs"], "a Chinese character was drawn as a box"
    assert all(0.9 <= width <= 1.1 for width in drawn["widths"]), drawn["widths"]


@pytest.fixture
def lab_two_steppers(tmp_path):
    """A JupyterLab server whose root holds `two.ipynb`: the widget in each edition."""
    root = tmp_path / "root"
    root.mkdir()
    write_notebook(
        root / "two.ipynb",
        "from streaming_lib.tools.stepper import StreamStepper\nStreamStepper(chunk_size=7)",
        'StreamStepper(chunk_size=7, lang="zh")',
    )
    yield from serve_lab(root, tmp_path)


# JavaScript: each control of each widget stepper whose words are cut (drawn wider than its
# box), and the width each slider's track has.
CONTROLS = """() => Array.from(document.querySelectorAll(".ss-stepper"), (stepper) => ({
    cut: Array.from(stepper.querySelectorAll(
            "button, .widget-label, .widget-label-basic, .widget-dropdown select"))
        .filter((control) => control.offsetWidth > 0)
        .filter((control) => control.scrollWidth > control.clientWidth + 1)
        .map((control) => control.textContent.trim() || control.title),
    slider: stepper.querySelector(".widget-slider .noUi-target, .widget-slider .slider-container")
        .getBoundingClientRect().width,
}))"""


def test_the_widget_s_controls_keep_their_words_at_150_percent_in_a_narrow_jupyterlab(
    lab_two_steppers, browser
):
    # A 1280 by 800 window at 150%: 853 by 533 CSS pixels.
    page = browser.new_page(viewport={"width": 853, "height": 533}, device_scale_factor=1.5)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"http://127.0.0.1:{lab_two_steppers}/lab/tree/two.ipynb?token={TOKEN}")
    status_bar = page.locator("#jp-main-statusbar")
    expect(status_bar.get_by_text(re.compile(r"\| Idle"))).to_be_visible(timeout=60_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    steppers = page.locator(".ss-stepper")
    expect(steppers).to_have_count(2, timeout=TIMEOUT_MS)
    for index in range(2):
        expect(steppers.nth(index).locator(".ss-status")).to_contain_text(
            re.compile(r"step 0 / |第 0 / "), timeout=TIMEOUT_MS
        )
    english, chinese = page.evaluate(CONTROLS)
    assert english["cut"] == [] and chinese["cut"] == []
    for label in ("−10", "+10", "chunk size"):
        expect(steppers.nth(0).get_by_text(label, exact=True)).to_be_visible()
    expect(steppers.nth(1).get_by_text("分片大小", exact=True)).to_be_visible()
    assert english["slider"] >= 200 and chinese["slider"] >= 200, (english, chinese)
