"""The lessons as slide decks: every cell's slide type follows the lesson, a deck is cut so
each slide holds one idea (a heading starts a slide, the stepper has one of its own), and a
deck of each edition, built by scripts/slides.py, opens offline in a real browser with its
code inside the slide.

The browser test needs Debian's chromium, the playwright package and the local copies of
what a deck loads (`python scripts/slides.py vendor`, which `.ci/run` runs; it uses npm).
Without them it is skipped, saying which is missing.
"""

import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest
from committed import read as read_committed

ROOT = Path(__file__).resolve().parent.parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


slides = load("slides")
shots = load("slide_screenshot")  # opens a deck in a browser, offline
CHROMIUM = shots.CHROMIUM
LESSONS = slides.lessons()
BOTH_EDITIONS = slides.lessons("en") + slides.lessons("zh")


def cell(kind, source, tags=(), slide_type=None):
    made = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(source)
    made.metadata["tags"] = list(tags)
    if slide_type is not None:
        made.metadata["slideshow"] = {"slide_type": slide_type}
    return made


def cut(*cells):
    """The (slide type, source) of each cell of a notebook of `cells`, cut for the screen."""
    notebook = nbformat.v4.new_notebook(cells=list(cells))
    return [
        (part.metadata["slideshow"]["slide_type"], part.source)
        for part in slides.for_slides(notebook).cells
    ]


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
    predict = cell("md", "**Predict.** How many lines?", ["predict"])
    assert slides.slide_type(cell("md", "## 2. The rules"), None) == "slide"
    assert slides.slide_type(cell("md", "### Rule 1"), None) == "subslide"
    assert slides.slide_type(predict, None) == "subslide"
    assert slides.slide_type(cell("code", "print(1)"), predict) == "fragment"
    assert slides.slide_type(cell("code", "x = 1", ["your-turn", "reference"]), None) == "skip"
    assert slides.slide_type(cell("md", "Some words."), None) == "-"


def test_a_heading_below_an_answer_starts_its_slide_and_the_answer_stays_with_its_question():
    assert cut(
        cell("md", "## 1. Chunks\n\nHow many chunks end an event?", slide_type="slide"),
        cell("code", "print(ends)", slide_type="-"),
        cell("md", "One: the last.\n\n## 2. A splitter\n\nKeep a buffer.", slide_type="slide"),
        cell("code", "def split(): ...", slide_type="-"),
    ) == [
        ("slide", "## 1. Chunks\n\nHow many chunks end an event?"),
        ("-", "print(ends)"),
        ("-", "One: the last."),
        ("slide", "## 2. A splitter\n\nKeep a buffer."),
        ("-", "def split(): ..."),
    ]


def test_a_cell_is_cut_before_each_section_it_starts_and_a_sub_heading_is_a_slide_below():
    assert slides.split_at_headings(
        "# 00 · Start\n\nGoals.\n\n## Builds\n\nA.\n\n### How\n\nB."
    ) == [
        "# 00 · Start\n\nGoals.",
        "## Builds\n\nA.",
        "### How\n\nB.",
    ]
    assert [kind for kind, _ in cut(cell("md", "Text.\n\n### Live\n\nMore."))] == ["-", "subslide"]


def test_a_heading_right_below_another_or_a_comment_in_a_code_block_cuts_nothing():
    rules = "## 3. The rules\n\n### A line is a field\n\nThe name is before the colon."
    commands = "How to run it:\n\n```bash\n# the first time\nmake lab\n```\n\nThen test."
    assert slides.split_at_headings(rules) == [rules]
    assert slides.split_at_headings(commands) == [commands]


def test_tags_go_with_each_piece_so_a_hidden_answer_stays_hidden_whole():
    pieces = cut(cell("md", "**Answer.** x\n\n## Why\n\nBecause.", ["reference"], "skip"))
    assert pieces == [("skip", "**Answer.** x"), ("skip", "## Why\n\nBecause.")]


def stepper_cell(slide_type="-"):
    made = cell("code", 'StreamStepper("fixture")', slide_type=slide_type)
    html = '<div class="ss-root ss-static" id="ss-1">…</div>'
    made.outputs = [nbformat.v4.new_output("display_data", {"text/html": html})]
    return made


def test_the_stepper_gets_a_slide_of_its_own_below_the_text_that_introduces_it():
    assert [
        kind
        for kind, _ in cut(
            cell("md", "### Watch it: the stepper\n\nStop at step 87.", slide_type="subslide"),
            stepper_cell(),
            cell("md", "What you saw at step 88.", slide_type="-"),
            cell("md", "## 6. Next section", slide_type="slide"),
        )
    ] == ["subslide", "subslide", "subslide", "slide"]


@pytest.mark.parametrize(
    "path", BOTH_EDITIONS, ids=[str(p.relative_to(ROOT)) for p in BOTH_EDITIONS]
)
def test_in_the_decks_every_section_heading_opens_its_piece_and_every_stepper_is_recognised(path):
    notebook = read_committed(path)
    pieces = slides.for_slides(notebook).cells
    late = [
        piece.source[:60]
        for piece in pieces
        if piece.cell_type == "markdown"
        and re.search(r"^#{1,3} ", re.sub(r"```.*?```", "", piece.source, flags=re.S), re.M)
        and not piece.source.startswith("#")
    ]
    assert late == [], "a heading below text in one slide piece"
    calls = sum("Stepper(" in c.source for c in notebook.cells if c.cell_type == "code")
    assert sum(map(slides.is_stepper, pieces)) == calls  # each call's output is a stepper


def test_a_picture_shown_from_a_file_goes_inside_the_deck_and_a_web_address_stays(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "dot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    lesson = tmp_path / "zh"  # the Chinese edition's folder: its pictures are one level up
    lesson.mkdir()
    text = "See ![a dot, content[0]](../images/dot.svg), ![a logo](https://example.org/logo.png)."
    assert slides.embed_images(text, lesson) == (
        "See ![a dot, content[0]](data:image/svg+xml;base64,"
        "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=)"
        ", ![a logo](https://example.org/logo.png)."
    )


@pytest.mark.parametrize(
    "path", BOTH_EDITIONS, ids=[str(p.relative_to(ROOT)) for p in BOTH_EDITIONS]
)
def test_every_picture_a_lesson_shows_from_a_file_is_found_and_goes_inside_its_deck(path):
    notebook = read_committed(path)
    cells = slides.for_slides(notebook, path.parent).cells
    from_file = re.compile(r"\]\((?!data:|https?://)[^)\s]+\.(?:png|svg|jpe?g|gif)\)")
    assert [
        m for c in cells if c.cell_type == "markdown" for m in from_file.findall(c.source)
    ] == []
    pictures = sum(len(from_file.findall(c.source)) for c in notebook.cells)
    assert sum(c.source.count("](data:image/") for c in cells) == pictures


def test_a_deck_built_with_local_copies_loads_nothing_from_elsewhere(tmp_path):
    vendor = tmp_path / "slides" / "vendor"  # as in build/slides
    for name, version in slides.VENDORED.items():  # what build checks: the versions
        (vendor / name).mkdir(parents=True)
        (vendor / name / "package.json").write_text(json.dumps({"version": version}))
    decks = slides.build(vendor, tmp_path / "slides", only=["02"])
    assert [deck.relative_to(tmp_path / "slides").as_posix() for deck in decks] == [
        "02_chunks_to_lines.slides.html",
        "zh/02_chunks_to_lines.slides.html",
    ]
    for deck in decks:
        html = deck.read_text(encoding="utf-8")
        loads = re.findall(r'<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]+)"', html)
        loads += re.findall(r"""\bimport\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]""", html)
        assert loads, "found no file the deck loads"
        local = ("./vendor/", "../vendor/", "data:")
        assert [url for url in loads if not url.startswith(local)] == []
    assert '<html lang="zh">' in decks[1].read_text(encoding="utf-8")


def test_a_folder_of_copies_at_other_versions_is_refused_with_the_command_that_fetches_them(
    tmp_path,
):
    (tmp_path / "reveal.js").mkdir()
    (tmp_path / "reveal.js" / "package.json").write_text('{"version": "3.9.2"}')
    with pytest.raises(SystemExit, match=r"lacks reveal\.js, .*scripts/slides\.py vendor"):
        slides.build(tmp_path, tmp_path / "slides", only=["02"])


def browser_missing():
    if not CHROMIUM.exists():
        return f"needs {CHROMIUM} (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "needs the playwright package"
    if lacking := slides.missing_from(slides.VENDOR):
        return f"needs {', '.join(lacking)} in build/slides/vendor: scripts/slides.py vendor (npm)"
    return None


# JavaScript: the code box (<pre>) of the deck with the longest line, and where it is.
LONGEST_CODE = """() => {
    const boxes = Array.from(document.querySelectorAll(".reveal .jp-InputArea-editor pre"));
    const longest = (pre) => Math.max(...pre.textContent.split("\\n").map((line) => line.length));
    const box = boxes.reduce((a, b) => (longest(b) > longest(a) ? b : a));
    box.id = "longest-code";
    return box.textContent.split("\\n").find((line) => line.length === longest(box));
}"""

# JavaScript: the longest code box's width and height as shown, and as they would be
# unwrapped; the slide's width.
MEASURE_CODE = """() => {
    const box = document.getElementById("longest-code");
    const slide = box.closest("section").getBoundingClientRect();
    const shown = box.getBoundingClientRect();
    const wrapped = {height: box.scrollHeight, width: box.scrollWidth, room: box.clientWidth};
    box.style.whiteSpace = "pre";
    const unwrapped = {height: box.scrollHeight, width: box.scrollWidth};
    box.style.whiteSpace = "";
    return {slide: [slide.left, slide.right], box: [shown.left, shown.right], wrapped, unwrapped};
}"""


@pytest.mark.browser
@pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))
@pytest.mark.parametrize("edition", ["en", "zh"])
def test_a_deck_opens_offline_with_its_long_code_wrapped_and_the_stepper_on_its_own_slide(
    tmp_path, edition
):
    from playwright.sync_api import expect, sync_playwright

    out = tmp_path / "slides"
    out.mkdir()
    (out / "vendor").symlink_to(slides.VENDOR)  # served beside the decks, as built
    (deck,) = slides.build(out / "vendor", out, only=["02_chunks_to_lines"], editions=(edition,))
    with sync_playwright() as playwright, shots.served(out) as url:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=shots.CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            offline = shots.Offline(page)
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            deck_url = f"{url}/{deck.relative_to(out).as_posix()}"

            # The stepper: alone on its slide, its top in sight, its scripts running.
            offline.show(deck_url, ".ss-root")
            current = page.locator(".reveal .slides section.present:not(.stack)")
            assert current.locator(".jp-Cell").count() == 1
            stepper = current.locator(".ss-root")
            expect(stepper.locator(".ss-slider")).to_be_visible()
            assert 0 <= stepper.bounding_box()["y"] < 800 / 2

            # The longest line of code: too long for the slide, so it wraps inside it.
            offline.open(deck_url)
            line = page.evaluate(LONGEST_CODE)
            offline.show(deck_url, ".jp-InputArea-editor pre", line)
            page.evaluate(LONGEST_CODE)  # the same box, marked again in the reloaded page
            size = page.evaluate(MEASURE_CODE)
            assert size["unwrapped"]["width"] > size["wrapped"]["room"], f"fits: {line!r}"
            assert size["wrapped"]["width"] <= size["wrapped"]["room"], f"cut: {line!r}"
            assert size["wrapped"]["height"] > size["unwrapped"]["height"]  # it went on below
            assert size["slide"][0] <= size["box"][0] and size["box"][1] <= size["slide"][1]

            # Everything it loaded came from 127.0.0.1, the local copies among it.
            loaded = page.evaluate(
                "() => performance.getEntriesByType('resource').map((entry) => entry.name)"
            )
            for name, version in slides.VENDORED.items():
                assert any(f"/vendor/{name}/" in address for address in loaded), (name, version)
            assert offline.blocked == []
            assert offline.failed == []
            assert errors == []
        finally:
            browser.close()


def test_make_slides_without_npm_and_without_local_copies_stops_before_writing_a_deck(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(slides, "VENDOR", tmp_path / "vendor")
    built = []
    monkeypatch.setattr(slides, "build", lambda *args, **kwargs: built.append(args))
    monkeypatch.setattr(slides.shutil, "which", lambda name: None)  # no npm on this machine
    with pytest.raises(SystemExit, match=r"lacks reveal\.js.*npm.*--cdn"):
        slides.local_copies(tmp_path / "vendor")
    with pytest.raises(SystemExit, match=r"npm"):
        slides.main(["build", "02"])
    assert built == []  # it stopped before writing any deck


def test_make_slides_fetches_what_the_decks_load_first_when_it_is_missing(tmp_path, monkeypatch):
    fetched = []

    def fetch(target):  # what npm would unpack: each package at its version
        for name, version in slides.VENDORED.items():
            (target / name).mkdir(parents=True)
            (target / name / "package.json").write_text(json.dumps({"version": version}))
        fetched.append(target)
        return target

    monkeypatch.setattr(slides, "fetch_vendor", fetch)
    monkeypatch.setattr(slides.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert slides.local_copies(tmp_path / "vendor") == tmp_path / "vendor"
    assert slides.local_copies(tmp_path / "vendor") == tmp_path / "vendor"  # now held: kept
    assert fetched == [tmp_path / "vendor"]


def test_the_set_up_cell_is_left_out_of_the_deck_and_a_first_cell_of_other_code_stays():
    setup = cell("code", "import json\n\nraw = read_fixture('fixture')", slide_type="-")
    assert cut(cell("md", "# 02 · Lines", slide_type="slide"), setup) == [
        ("slide", "# 02 · Lines"),
        ("skip", setup.source),
    ]
    assert cut(cell("md", "# 02", slide_type="slide"), cell("code", "print(1)", slide_type="-"))[
        1
    ] == ("-", "print(1)")


# JavaScript: the address "h/v" of every slide, in order.
ADDRESSES = """() => Array.from(document.querySelectorAll(".reveal .slides > section")).flatMap(
    (top, h) => {
        const below = Array.from(top.querySelectorAll(":scope > section"));
        return (below.length ? below : [top]).map((_, v) => `${h}/${v}`);
    })"""
# JavaScript: the slide shown, once it is the one at `address`: its height as drawn and its
# content's, whether it scrolls, whether it says it goes on below, what is on it, and each
# block of code or output on it (or a frame) that scrolls inside it.
SHOWN = """(address) => {
    const [h, v] = address.split("/").map(Number);
    const top = document.querySelectorAll(".reveal .slides > section")[h];
    const below = top.querySelectorAll(":scope > section");
    const slide = below.length ? below[v] : top;
    if (!slide.classList.contains("present")) return null;
    const blocks = slide.querySelectorAll("pre, .jp-OutputArea-output, .course-scrolls");
    return {
        content: slide.scrollHeight, room: slide.clientHeight,
        continues: slide.classList.contains("course-continues"), next: below.length > v + 1,
        text: slide.textContent.trim().slice(0, 80),
        scrolling: Array.from(blocks).filter((block) => block.scrollHeight > block.clientHeight + 1)
            .map((block) => [block.className || block.tagName, block.textContent.slice(0, 60)]),
    };
}"""
# JavaScript: every block of code or output text of the deck (each <pre> but the stepper's),
# as the deck's file holds it and as fitted; a block cut across slides is its pieces read as
# one (data-course-part 0, 1, 2...). Each block as its runs of text, each run with the classes
# of the elements around it (its colour), so a cut that lost a span's class shows.
BLOCKS = """async () => {
    const blocksOf = (page) => Array.from(page.querySelectorAll(".reveal .slides pre"))
        .filter((block) => !block.closest(".ss-root"));
    const runs = (pieces) => {
        const found = [];
        for (const piece of pieces) {
            const walker = piece.ownerDocument.createTreeWalker(piece, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const classes = [];
                for (let at = node.parentElement; at !== piece; at = at.parentElement) {
                    classes.push(at.className);
                }
                const key = classes.join(" < "), last = found[found.length - 1];
                if (last && last[0] === key) last[1] += node.data;
                else if (node.data) found.push([key, node.data]);
            }
        }
        return found;
    };
    const file = new DOMParser().parseFromString(await (await fetch(location.href)).text(),
        "text/html");
    const groups = [];
    for (const block of blocksOf(document)) {
        if (Number(block.dataset.coursePart || 0) > 0) groups[groups.length - 1].push(block);
        else groups.push([block]);
    }
    const slideOf = (block) => block.closest("section");
    return {
        file: blocksOf(file).map((block) => runs([block])),
        fitted: groups.map(runs),
        parts: groups.filter((pieces) => pieces.length > 1)
            .map((pieces) => pieces.map((piece) => Number(piece.dataset.coursePart))),
        pieces: groups.filter((pieces) => pieces.length > 1)
            .map((pieces) => pieces.map((piece) => runs([piece]))),
        uncued: groups.flatMap((pieces) => pieces.slice(1).filter((piece, n) =>
            !slideOf(pieces[n]).classList.contains("course-continues")
            || slideOf(pieces[n]).nextElementSibling !== slideOf(piece)))
            .map((piece) => piece.textContent.slice(0, 60)),
    };
}"""


def look_through(page, deck_url):
    """Open the deck at `deck_url` as fitted and look at each of its slides: the slides whose
    content is taller than the screen, the blocks that scroll inside a slide, how many slides
    show the cue, and its blocks of code or output (BLOCKS), checked whole."""
    shots.Offline(page).open(deck_url)
    page.wait_for_selector(".reveal.course-fitted", state="attached")
    # A block of code or output cut across slides: nothing lost, nothing twice, every span's
    # colour kept, each piece on the slide right below the one before, which shows the cue.
    blocks = page.evaluate(BLOCKS)
    text = ["".join(run for _, run in block) for block in blocks["file"]]
    assert ["".join(run for _, run in block) for block in blocks["fitted"]] == text, deck_url
    assert blocks["fitted"] == blocks["file"], deck_url
    assert all(parts == list(range(len(parts))) for parts in blocks["parts"]), deck_url
    assert blocks["uncued"] == [], deck_url
    too_tall, scrolling, cues = [], [], 0
    for address in page.evaluate(ADDRESSES):
        page.evaluate("(address) => { location.hash = `#/${address}`; }", address)
        slide = page.wait_for_function(SHOWN, arg=address).json_value()
        # reveal draws its 700 px slide at the screen's height: what fits in it fits
        if slide["content"] > min(slide["room"], 700) + 1:
            too_tall.append((address, slide["content"], slide["text"]))
        scrolling += [(address, *block) for block in slide["scrolling"]]
        if slide["continues"]:  # its cue says a slide below goes on
            assert slide["next"], (deck_url, address)
            cues += 1
    return {"too_tall": too_tall, "scrolling": scrolling, "cues": cues, "blocks": blocks}


@pytest.mark.browser
@pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))
@pytest.mark.parametrize("edition", ["en", "zh"])
def test_every_slide_of_every_deck_fits_a_1280_by_720_screen_without_scrolling(tmp_path, edition):
    from playwright.sync_api import sync_playwright

    out = tmp_path / "slides"
    out.mkdir()
    (out / "vendor").symlink_to(slides.VENDOR)
    decks = slides.build(out / "vendor", out, editions=(edition,))
    assert len(decks) == len(slides.lessons(edition))
    with sync_playwright() as playwright, shots.served(out) as url:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=shots.CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            too_tall, scrolling, cues, cut_blocks = [], [], 0, 0
            for deck in decks:
                seen = look_through(page, f"{url}/{deck.relative_to(out).as_posix()}")
                too_tall += [(deck.name, *slide) for slide in seen["too_tall"]]
                scrolling += [(deck.name, *block) for block in seen["scrolling"]]
                cues += seen["cues"]
                cut_blocks += len(seen["blocks"]["parts"])
            assert too_tall == []
            assert scrolling == []  # no block of code or output scrolls inside its slide
            assert cues > 0  # the long sections were cut, not left to scroll
            assert cut_blocks > 0  # and blocks of code or output taller than a slide, by lines
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))
def test_a_docstring_a_red_output_and_a_list_taller_than_a_slide_go_on_below_whole(
    tmp_path, monkeypatch
):
    from playwright.sync_api import sync_playwright

    lines = "\n".join(f"    Line {n} of a docstring that goes on." for n in range(1, 61))
    code = nbformat.v4.new_code_cell(f'def told():\n    """Told.\n\n{lines}\n    """\n    return 1')
    red = "\n".join(f"warning {n}: in red" for n in range(1, 61))
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"\x1b[31m{red}\x1b[0m\n")]
    items = "\n".join(
        f"{n}. Item {n}, in a sentence that fills most of a line." for n in range(1, 41)
    )
    lesson = nbformat.v4.new_notebook(
        cells=[
            cell("md", "# 90 · Long", slide_type="slide"),
            code,
            cell("md", f"## Forty items\n\n{items}", slide_type="slide"),
        ]
    )
    (tmp_path / "lessons").mkdir()
    nbformat.write(lesson, tmp_path / "lessons" / "90_long.ipynb")
    monkeypatch.setitem(slides.EDITIONS, "en", (tmp_path / "lessons", "."))
    out = tmp_path / "slides"
    out.mkdir()
    (out / "vendor").symlink_to(slides.VENDOR)
    (deck,) = slides.build(out / "vendor", out, editions=("en",))
    with sync_playwright() as playwright, shots.served(out) as url:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=shots.CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            seen = look_through(page, f"{url}/{deck.name}")  # joined back, each is whole
            lists = page.evaluate(
                "() => Array.from(document.querySelectorAll('.reveal ol'))"
                ".map((list) => [list.start, list.children.length])"
            )
        finally:
            browser.close()
    assert seen["too_tall"] == [] and seen["scrolling"] == []
    cut = seen["blocks"]["pieces"]  # per block cut: per piece, its runs [classes, text]
    assert len(cut) == 2 and all(len(pieces) > 1 for pieces in cut)
    for pieces, colour in zip(cut, ["sd", "ansi-red-fg"], strict=True):
        # the cut is inside the string, inside the red: the last line above it and the first
        # below it have the same colour (each docstring line is a span of its own; the red
        # is one span over all its lines, cut in two and begun again below)
        for above, under in zip(pieces, pieces[1:], strict=False):
            above, under = ([run for run in piece if run[1].strip()] for piece in (above, under))
            assert colour in above[-1][0].split() and colour in under[0][0].split()
    red_runs = [run for piece in cut[1] for run in piece if run[1].strip()]
    assert len(red_runs) == len(cut[1])  # each piece is one red span, cut at a line's end
    # the list goes on below, numbered on from the items above
    assert len(lists) > 1 and sum(count for _, count in lists) == 40
    assert [start for start, _ in lists] == [
        1 + sum(c for _, c in lists[:n]) for n in range(len(lists))
    ]
