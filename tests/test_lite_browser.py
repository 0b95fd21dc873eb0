"""Lesson 02 in the browser with nothing installed: the JupyterLite site `make lite` builds.

The site (build/site/lite/, from scripts/lite.py) is served on 127.0.0.1; Debian's chromium,
driven by playwright, opens lesson 02 in its JupyterLab with every request that leaves the
site refused, runs all the cells in the browser's Python (Pyodide), and finds what a local
run prints: each check's ✔ and ✘ lines, as the committed lesson holds them.

The site is built first when it is missing or was built from another commit (a minute or two,
with npm and PyPI); where those cannot be reached, the test says so and skips. A cold start
of the kernel in the browser takes from half a minute to a few minutes on a busy machine.
"""

import functools
import http.server
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from committed import read as read_committed
from test_stepper_browser import CHROMIUM, CHROMIUM_ARGS, missing

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
LESSON = {"en": "notebooks/02_chunks_to_lines.ipynb", "zh": "notebooks/zh/02_chunks_to_lines.ipynb"}
KERNEL_START_MS = 600_000  # Pyodide compiled and started in the page, the course loaded
RUN_ALL_MS = 600_000  # every cell of the lesson, in WebAssembly

if missing():
    pytest.skip(missing(), allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402


def load_lite():
    """scripts/lite.py, the site's build, as a module."""
    spec = importlib.util.spec_from_file_location("lite", REPO / "scripts" / "lite.py")
    lite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lite)
    return lite


def unreachable(lite) -> str | None:
    """Why the site cannot be built here (no npm, no npm registry, no PyPI), or None."""
    if not shutil.which("npm"):
        return "needs npm to fetch Pyodide (apt-get install npm)"
    npm = subprocess.run(
        ["npm", "view", f"pyodide@{lite.PYODIDE_VERSION}", "version"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if npm.returncode != 0:
        return f"cannot reach the npm registry: {npm.stderr.strip()[-300:]}"
    with tempfile.TemporaryDirectory() as scratch:  # a wheel only PyPI has: jiter for Pyodide
        pypi = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", scratch,
             "--only-binary", ":all:", "--platform", "pyemscripten_2026_0_wasm32",
             "--python-version", "3.14", "--implementation", "cp", "--abi", "cp314", "jiter"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    if pypi.returncode != 0:
        return f"cannot reach PyPI: {pypi.stderr.strip()[-300:]}"
    return None


@pytest.fixture(scope="session")
def site():
    """build/site/lite/, built from HEAD (now, if it is missing or from another commit)."""
    lite = load_lite()
    if lite.built_from(lite.SITE) != lite.head_commit():
        reason = unreachable(lite)
        if reason:
            pytest.skip(f"cannot build the site: {reason}")
        built = subprocess.run(
            [sys.executable, str(REPO / "scripts" / "lite.py")],
            cwd=REPO, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if built.returncode != 0:
            pytest.fail(f"scripts/lite.py failed:\n{built.stdout[-3000:]}\n{built.stderr[-3000:]}")
    return lite.SITE


class SiteFiles(http.server.SimpleHTTPRequestHandler):
    # A module worker (the kernel's) and WebAssembly's streaming compile accept only their
    # own media types, which Python's table may lack.
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="session")
def site_url(site):
    """The site, served on 127.0.0.1 until the session ends; yields its URL (ends with /)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(SiteFiles, directory=str(site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def expected_lines(cell) -> list[str]:
    """The lines a code cell's committed outputs show as text: printed text, a result shown
    as plain text, and an error's one line (the lessons set IPython's Minimal tracebacks)."""
    lines = []
    for output in cell.outputs:
        if output.output_type == "stream":
            lines += output.text.splitlines()
        elif output.output_type == "execute_result" and set(output.data) == {"text/plain"}:
            lines += output.data["text/plain"].splitlines()
        elif output.output_type == "error":
            lines.append(f"{output.ename}: {output.evalue}")
    return [line.strip() for line in lines if line.strip()]


CHECK_LINE = re.compile(r"^[✔✘] ")
RAN = re.compile(r"\[\d+\]:")  # a code cell's prompt once it has run: [7]:
PROMPTS = """Array.from(
    document.querySelectorAll(".jp-Notebook .jp-CodeCell .jp-InputArea-prompt"),
    (prompt) => prompt.textContent)"""


def run_every_cell(page) -> list[int]:
    """Run all the notebook's cells, in order; returns the (0-based) code cells after which
    the run stopped and had to be started again from the next one.

    JupyterLite stops "Run All" at any error, even one a cell tagged `raises-exception`
    makes on purpose (its kernel service cancels what is queued after an error reply, which
    JupyterLab asks only when the tag is missing), so a lesson's deliberate error is caught
    and shown by its cell; should one stop the run, this goes on as a learner would, with
    "Run Selected Cell and All Below" from the next cell, and says where it stopped."""
    stops = []
    # The committed outputs and prompts go first: a prompt with a number is then one this run set.
    page.get_by_role("menuitem", name="Edit", exact=True).click()
    page.get_by_role("menuitem", name="Clear Outputs of All Cells", exact=True).click()
    expect(page.locator(".jp-Notebook .jp-OutputArea-output")).to_have_count(0)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    start = 0
    while True:
        page.wait_for_function(
            f"""(start) => {{
                const prompts = {PROMPTS};
                const busy = prompts.some((prompt) => prompt.includes("*"));
                return /^\\[\\d+\\]:$/.test(prompts[start]) && !busy;
            }}""",
            arg=start,
            timeout=RUN_ALL_MS,
        )
        prompts = page.evaluate(f"() => {PROMPTS}")
        unrun = [index for index, prompt in enumerate(prompts) if not RAN.fullmatch(prompt)]
        if not unrun:
            return stops
        start = unrun[0]
        stops.append(start - 1)
        page.locator(".jp-Notebook .jp-CodeCell").nth(start).locator(".jp-InputPrompt").click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run Selected Cell and All Below", exact=True).click()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lesson_02_runs_in_the_browser_with_every_request_beyond_the_site_refused(
    site_url, browser, lang
):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    refused = []

    def only_the_site(route):
        if route.request.url.startswith(site_url):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_site)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{site_url}lab/index.html?path={LESSON[lang]}")
    status_bar = page.locator("#jp-main-statusbar")
    expect(status_bar.get_by_text(re.compile(r"Python \(Pyodide\) \| Idle"))).to_be_visible(
        timeout=KERNEL_START_MS
    )
    stops = run_every_cell(page)

    lesson = read_committed(REPO / LESSON[lang])
    committed = [cell for cell in lesson.cells if cell.cell_type == "code"]
    # "Run All" went on to the last cell: the deliberate UnicodeDecodeError is shown, caught.
    assert stops == []
    shown = page.evaluate(
        """() => Array.from(document.querySelectorAll(".jp-Notebook .jp-CodeCell"), (cell) =>
            Array.from(cell.querySelectorAll(".jp-OutputArea-output"), (o) => o.textContent)
                .join("\\n"))"""
    )
    assert len(shown) == len(committed)
    for number, (cell, output) in enumerate(zip(committed, shown, strict=True), 1):
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        for line in expected_lines(cell):
            assert line in lines, f"code cell {number} printed {lines}, not {line!r}"
    # The checks: the learner's tasks failing (unwritten, as committed), and no tick for a
    # check that would only have tested the library's stage: it says it did not run.
    printed = [line.strip() for output in shown for line in output.splitlines()]
    checks = [line for cell in committed for line in expected_lines(cell)]
    assert [line for line in printed if CHECK_LINE.match(line)] == [
        line for line in checks if CHECK_LINE.match(line)
    ]
    assert any(line.startswith("✘") for line in checks)
    assert not any(line.startswith("✔") for line in printed)
    if lang == "en":
        assert any(line.startswith("Not run: lines is the library's for now") for line in printed)
    assert printed[-1] == checks[-1]  # the last cell ran: "all checks passed", in its language
    # The stepper is a live widget there too.
    expect(page.locator(".ss-stepper .ss-status")).to_contain_text(re.compile(r"step 0 / |第 0 / "))
    assert refused == [], "the page asked for files outside the site"
