"""The lessons as slide decks: every cell's slide type follows the lesson, and a deck
built by scripts/slides.py shows a code cell with its output in a real browser.

The browser test needs Debian's chromium, the playwright package and local copies of
reveal.js, jQuery and RequireJS (`python scripts/slides.py vendor`, which `.ci/run`
runs; it uses npm). Without them it is skipped, saying which is missing.
"""

import importlib.util
from pathlib import Path

import nbformat
import pytest
from committed import read as read_committed

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "build" / "slides" / "vendor"
CHROMIUM = Path("/usr/bin/chromium")


def load_slides():
    spec = importlib.util.spec_from_file_location("slides", ROOT / "scripts" / "slides.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


slides = load_slides()
LESSONS = slides.lessons()


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_cell_of_a_lesson_has_the_slide_type_its_place_gives_it(path):
    # `python scripts/slides.py mark` sets them; a cell added since shows here.
    cells = read_committed(path).cells  # as committed: a learner's added cell never counts
    wrong = [
        (cell.get("id"), cell.metadata.get("slideshow", {}).get("slide_type"), wanted)
        for cell, previous in zip(cells, [None, *cells[:-1]], strict=True)
        if cell.metadata.get("slideshow", {}).get("slide_type")
        != (wanted := slides.slide_type(cell, previous))
    ]
    assert not wrong, f"run scripts/slides.py mark: (cell id, stored, wanted) {wrong}"


def test_headings_start_slides_predictions_reveal_their_answer_and_references_stay_off():
    def cell(kind, source, tags=()):
        made = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(
            source
        )
        made.metadata["tags"] = list(tags)
        return made

    predict = cell("md", "**Predict.** How many lines?", ["predict"])
    assert slides.slide_type(cell("md", "## 2. The rules"), None) == "slide"
    assert slides.slide_type(cell("md", "### Rule 1"), None) == "subslide"
    assert slides.slide_type(predict, None) == "subslide"
    assert slides.slide_type(cell("code", "print(1)"), predict) == "fragment"
    assert slides.slide_type(cell("code", "x = 1", ["your-turn", "reference"]), None) == "skip"
    assert slides.slide_type(cell("md", "Some words."), None) == "-"


def browser_missing():
    if not CHROMIUM.exists():
        return f"needs {CHROMIUM} (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "needs the playwright package"
    if not (VENDOR / "reveal.js" / "dist" / "reveal.js").exists():
        return "needs build/slides/vendor: python scripts/slides.py vendor (uses npm)"
    return None


@pytest.mark.browser
@pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))
def test_a_deck_opens_in_a_browser_and_shows_a_code_cell_with_its_output(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    out = tmp_path / "slides"
    slides.build(VENDOR, out, only=["01_sse_wire_format"])
    deck = out / "01_sse_wire_format.slides.html"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(deck.as_uri())
            expect(page.locator(".reveal.ready")).to_have_count(1)  # reveal.js is running
            # The first slide that holds a code cell with an output, found in the deck's
            # sections (a slide, or a slide below one): open it by its address, #/h/v.
            where = page.evaluate(
                """() => {
                    const top = Array.from(document.querySelectorAll(".reveal .slides > section"));
                    for (const [h, section] of top.entries()) {
                        const below = Array.from(section.querySelectorAll(":scope > section"));
                        for (const [v, slide] of (below.length ? below : [section]).entries()) {
                            if (slide.querySelector(".jp-CodeCell .jp-InputArea")
                                && slide.querySelector(".jp-OutputArea-output pre")) {
                                return [h, v];
                            }
                        }
                    }
                    return null;
                }"""
            )
            assert where is not None, "no slide with a code cell and its output"
            page.goto(f"{deck.as_uri()}#/{where[0]}/{where[1]}")
            current = page.locator("section.present").last
            expect(current.locator(".jp-CodeCell .jp-InputArea").first).to_be_visible()
            expect(current.locator(".jp-OutputArea-output pre").first).to_be_visible()
            assert page.locator(".reveal .slides section").count() > 5
            # Offline, the template's MathJax hook (no math in the lessons) has no MathJax.
            assert [error for error in errors if "MathJax" not in error] == []
        finally:
            browser.close()
