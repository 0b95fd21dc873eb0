"""The lessons as reveal.js slide decks, both editions, for a teacher at a projector.

    python scripts/slides.py vendor              # fetch reveal.js & co (npm), once
    python scripts/slides.py build               # build/slides/NN_name.slides.html, .../zh/...
    python scripts/slides.py build 01 04         # ... only those lessons
    python scripts/slides.py build --edition zh  # ... only the Chinese decks
    python scripts/slides.py mark                # authors: set every cell's slide type

`make slides` runs `build`. A deck is the notebook as it is on disk (outputs
included) through nbconvert's `SlidesExporter`, with the course's template
(`scripts/slides_template/`: reveal's white theme, code that wraps at the slide's
edge, the stepper's panels as on the page). The English decks come from
`notebooks/`, the Chinese ones from `notebooks/zh/` into `build/slides/zh/`.

Everything a deck loads (reveal.js, jQuery, RequireJS, MathJax, mermaid) is
fetched once with `npm pack` into `build/slides/vendor`, at pinned versions
(VENDORED; about 145 MB unpacked), by `vendor` or by the first `build` that
lacks them, before it writes any deck; the decks point at that folder and open
offline, fetching nothing. Without npm (or its registry) `build` stops at
once and says so, rather than write decks that need the internet; `--cdn`
asks for such decks on purpose, and `--vendor DIR` names another folder of
local copies.

Which cell starts a slide is metadata in the notebooks (`slideshow.slide_type`),
set by `mark` from the lesson's structure, so a deck follows the lesson:

    a # or ## heading        a new slide (the cell that holds it starts the slide)
    a ### heading, a predict a new slide below it (reveal's vertical "subslide")
      prompt, a your-turn
      task, the review
    the cell that answers    appears on the next click ("fragment")
      a predict prompt
    a hidden reference       left out ("skip"): the answer is not shown on the screen
      answer
    anything else            on the slide before it ("-")

More rules apply when a deck is built (`for_slides`), so the notebooks stay
as they are: a markdown cell is cut before each heading that follows text in
it (the answer to the last section stays on that section's slide, and the
heading starts its own), the stepper gets a slide of its own, and the set-up
cell is left out. When a deck opens, every slide taller than the screen is cut
where it overflows (`slides_template/fit.js`): what does not fit moves to a
slide below, and the slide it left shows ▼ at its foot. A block taller than a
whole slide is cut too: a cell between its code and outputs, a list between its
items, a table between its rows, and code or output text between whole lines,
its colours kept, so that no slide and no block on it scrolls.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import mimetypes
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "slides"
VENDOR = OUT / "vendor"
TEMPLATE = Path(__file__).resolve().parent / "slides_template"
# Each edition: the folder of its lessons, and the folder of its decks below OUT.
EDITIONS = {"en": (NOTEBOOKS, "."), "zh": (NOTEBOOKS / "zh", "zh")}
# What a deck loads (npm package: version), pinned: reveal.js, MathJax and mermaid at the
# versions nbconvert's reveal template names; `exporter` names the file of each a deck opens.
VENDORED = {
    "reveal.js": "4.0.2",
    "jquery": "3.7.1",
    "requirejs": "2.3.7",
    "mathjax": "2.7.7",
    "mermaid": "11.10.0",
}
HEADING = re.compile(r"#{1,6} ")
# ![alt](src), as the lessons write one: the alt text may hold [brackets], in pairs.
IMAGE = re.compile(r"!\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^)\s]+)\)")
STEPPER = 'class="ss-root'  # the root element of the stepper's HTML (stepper/templates)


def lessons(edition: str = "en") -> list[Path]:
    """The lesson notebooks of `edition` ("en" or "zh"), in order."""
    return sorted(EDITIONS[edition][0].glob("[0-9][0-9]_*.ipynb"))


def slide_type(cell: nbformat.NotebookNode, previous: nbformat.NotebookNode | None) -> str:
    """The reveal.js slide type of `cell`, by the rules in this module's docstring."""
    tags = set(cell.metadata.get("tags", []))
    if "reference" in tags:
        return "skip"
    if cell.cell_type == "markdown":
        lines = re.sub(r"```.*?```", "", cell.source, flags=re.S).split("\n")  # not in code
        if any(line.startswith(("# ", "## ")) for line in lines) and "review" not in tags:
            return "slide"
        if any(line.startswith("### ") for line in lines) or tags & {
            "predict",
            "your-turn",
            "review",
        }:
            return "subslide"
        return "-"
    if previous is not None and "predict" in previous.metadata.get("tags", []):
        return "fragment"
    return "-"


def mark(path: Path) -> bool:
    """Set every cell's slide type in the notebook at `path`; True if anything changed."""
    notebook = nbformat.read(path, as_version=4)
    changed = False
    previous = None
    for cell in notebook.cells:
        wanted = slide_type(cell, previous)
        if cell.metadata.get("slideshow", {}).get("slide_type") != wanted:
            cell.metadata["slideshow"] = {"slide_type": wanted}
            changed = True
        previous = cell
    if changed:
        nbformat.write(notebook, path)
    return changed


def split_at_headings(source: str) -> list[str]:
    """A markdown cell's text cut before each heading that follows text: one piece per
    section it touches. A heading right below another one stays with it, and a line in a
    ``` block is never a heading.

    >>> split_at_headings("Six lines.\\n\\n## 3. CR and CRLF\\n\\nSSE ends a line...")
    ['Six lines.', '## 3. CR and CRLF\\n\\nSSE ends a line...']
    >>> split_at_headings("## 3. The rules\\n\\n### A line is a field\\n\\nThe name...")
    ['## 3. The rules\\n\\n### A line is a field\\n\\nThe name...']
    """
    pieces: list[list[str]] = [[]]
    in_code = False
    for line in source.split("\n"):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and HEADING.match(line):
            text_above = any(kept.strip() and not HEADING.match(kept) for kept in pieces[-1])
            if text_above:
                pieces.append([])
        pieces[-1].append(line)
    return ["\n".join(piece).strip("\n") for piece in pieces]


def is_stepper(cell: nbformat.NotebookNode) -> bool:
    """True if `cell` is a code cell whose output is the stepper."""
    return cell.cell_type == "code" and any(
        STEPPER in "".join(output.get("data", {}).get("text/html", ""))
        for output in cell.get("outputs", [])
    )


def embed_images(source: str, folder: Path) -> str:
    """A markdown cell's text with each image it shows from a file (its path relative to
    `folder`, the notebook's) put inside it as a data: URL, so that a deck is one file
    that shows its pictures wherever it is copied. Other images stay as they are.

    >>> embed_images("![a dot](dot.svg)", Path("/nowhere"))  # no such file
    '![a dot](dot.svg)'
    """

    def inline(image: re.Match[str]) -> str:
        alt, src = image[1], image[2]
        file = folder / src
        if "://" in src or src.startswith("data:") or not file.is_file():
            return image[0]
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        data = base64.b64encode(file.read_bytes()).decode("ascii")
        return f"![{alt}](data:{kind};base64,{data})"

    return IMAGE.sub(inline, source)


def for_slides(
    notebook: nbformat.NotebookNode, folder: Path | None = None
) -> nbformat.NotebookNode:
    """A copy of `notebook` cut for the screen (the notebook itself is left as it is):

    - a markdown cell holding a heading below some text is cut there (`split_at_headings`),
      and each piece gets the slide type its text gives it (`slide_type`): the text above
      stays on the slide before, the heading starts a slide;
    - a cell whose output is the stepper starts a slide below the one before it, and the
      cell after it starts another, so the stepper is alone on its slide, top at the top;
    - the lesson's set-up (its first code cell, when it starts with imports) is left out
      ("skip"), so the title slide holds the title and the goals;
    - with `folder` (the notebook's), the images its markdown shows from files are put
      inside the deck (`embed_images`).

    What is still taller than the screen is cut when the deck opens (fit.js in the template:
    it measures each slide as drawn).
    """
    cut = copy.deepcopy(notebook)
    cells: list[nbformat.NotebookNode] = []
    for cell in cut.cells:
        if folder is not None and cell.cell_type == "markdown":
            cell.source = embed_images(cell.source, folder)
        pieces = split_at_headings(cell.source) if cell.cell_type == "markdown" else []
        if len(pieces) < 2:
            cells.append(cell)
            continue
        for number, piece in enumerate(pieces):
            part = copy.deepcopy(cell)  # its tags and metadata, for each piece
            part.source = piece
            part.id = f"{cell.get('id', 'cell')}-{number}"
            part.metadata["slideshow"] = {
                "slide_type": slide_type(part, cells[-1] if cells else None)
            }
            cells.append(part)
    for before, cell in zip([None, *cells], cells, strict=False):
        beside_stepper = is_stepper(cell) or (before is not None and is_stepper(before))
        joins = cell.metadata.get("slideshow", {}).get("slide_type", "-") in ("-", "fragment")
        if beside_stepper and joins:  # starts a slide below the one before
            cell.metadata["slideshow"] = {"slide_type": "subslide"}
    setup = next((cell for cell in cells if cell.cell_type == "code"), None)
    if setup is not None and setup.source.startswith(("%", "import ", "from ")):
        setup.metadata["slideshow"] = {"slide_type": "skip"}
    cut.cells = cells
    return cut


def missing_from(vendor: Path) -> list[str]:
    """The packages of VENDORED that `vendor` lacks (or holds at another version)."""

    def version(name: str) -> str | None:
        manifest = vendor / name / "package.json"
        return json.loads(manifest.read_text())["version"] if manifest.exists() else None

    return [name for name, wanted in VENDORED.items() if version(name) != wanted]


def exporter(vendor: Path | None, out: Path, language: str = "en") -> SlidesExporter:
    """nbconvert's slides exporter with the course's template, for decks written into
    `out`: scrolling slides, no In/Out prompts (their width goes to the code), `language`
    in <html lang>; everything a deck loads from `vendor` (as paths relative to `out`) if
    given, else from CDNs."""
    slides = SlidesExporter(
        extra_template_basedirs=[str(TEMPLATE.parent)], template_name=TEMPLATE.name
    )
    slides.reveal_scroll = False  # slides.css makes a long slide scroll
    slides.reveal_theme = "white"  # its fonts come with reveal.js (other themes fetch theirs)
    slides.exclude_input_prompt = True
    slides.exclude_output_prompt = True
    slides.language_code = language
    if vendor is not None:
        base = Path(os.path.relpath(os.path.abspath(vendor), os.path.abspath(out))).as_posix()
        base = base if base.startswith(".") else f"./{base}"  # as an ES module import takes it
        slides.reveal_url_prefix = f"{base}/reveal.js"
        slides.jquery_url = f"{base}/jquery/dist/jquery.min.js"
        slides.require_js_url = f"{base}/requirejs/require.js"
        slides.mathjax_url = f"{base}/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
        slides.mermaid_js_url = f"{base}/mermaid/dist/mermaid.esm.min.mjs"
    return slides


def build(
    vendor: Path | None = None,
    out: Path = OUT,
    only: list[str] | None = None,
    editions: tuple[str, ...] = tuple(EDITIONS),
) -> list[Path]:
    """Write one deck per lesson of each of `editions` into `out` (the Chinese ones into
    `out`/zh), or only for the lessons whose names start with one of `only`; the decks'
    paths. With `vendor`, the decks load everything from there (it must hold VENDORED)."""
    if vendor is not None and (lacking := missing_from(vendor)):
        raise SystemExit(
            f"{vendor} lacks {', '.join(lacking)} (at the versions the decks need): "
            "run python scripts/slides.py vendor"
        )
    decks = []
    for edition in editions:
        chosen = [p for p in lessons(edition) if only is None or p.stem.startswith(tuple(only))]
        if not chosen:
            names = ", ".join(p.stem for p in lessons(edition))
            raise SystemExit(
                f"no lesson starts with {' or '.join(only or [])}: choose from {names}"
            )
        folder = (out / EDITIONS[edition][1]).absolute()
        folder.mkdir(parents=True, exist_ok=True)
        slides = exporter(vendor, folder, edition)
        for path in chosen:
            notebook = for_slides(nbformat.read(path, as_version=4), path.parent)
            body, _ = slides.from_notebook_node(notebook, {"metadata": {"name": path.stem}})
            deck = folder / f"{path.stem}.slides.html"
            deck.write_text(body, encoding="utf-8")
            decks.append(deck)
            print(f"wrote {deck.relative_to(ROOT) if deck.is_relative_to(ROOT) else deck}")
    return decks


def fetch_vendor(target: Path = VENDOR) -> Path:
    """Download the packages of VENDORED with `npm pack` into `target` (one folder each,
    as their npm packages hold them); a package already there at its version is kept.
    Needs npm and the npm registry."""
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name in missing_from(target):
            version = VENDORED[name]
            subprocess.run(
                ["npm", "pack", "--silent", f"{name}@{version}"],
                cwd=scratch,
                check=True,
                stdout=subprocess.DEVNULL,  # npm names the archive it wrote
            )
            unpacked = Path(scratch) / name
            with tarfile.open(next(Path(scratch).glob(f"{name}-{version}.tgz"))) as archive:
                archive.extractall(unpacked, filter="data")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.move(unpacked / "package", target / name)  # npm packs into package/
            print(f"fetched {name} {version}")
    return target


def local_copies(target: Path = VENDOR) -> Path:
    """`target`, holding everything VENDORED (fetched now with npm if it lacks any); exits
    with what to do if npm is missing or fails, so that no deck is written that needs the
    internet."""
    if not missing_from(target):
        return target
    if shutil.which("npm") is None:
        raise SystemExit(
            f"slides: the decks load reveal.js & co from {target}, which lacks "
            f"{', '.join(missing_from(target))}, and npm (which fetches them) is not "
            "installed: install npm (apt-get install npm), or build with --cdn for decks "
            "that need the internet"
        )
    print(f"slides: fetching {', '.join(missing_from(target))} into {target} (npm), once")
    try:
        return fetch_vendor(target)
    except (subprocess.CalledProcessError, OSError) as error:
        raise SystemExit(
            f"slides: could not fetch reveal.js & co with npm ({error}): with the npm registry "
            "in reach run python scripts/slides.py vendor, or build with --cdn for decks "
            "that need the internet"
        ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["build", "mark", "vendor"])
    parser.add_argument(
        "--vendor", type=Path, help="build: the local copies (default: build/slides/vendor)"
    )
    parser.add_argument(
        "--cdn",
        action="store_true",
        help="build: decks that load reveal.js & co from CDNs (they need the internet)",
    )
    parser.add_argument("--edition", choices=list(EDITIONS), help="build: only this edition")
    parser.add_argument("lessons", nargs="*", help="build: only these (name prefixes: 01 04)")
    args = parser.parse_args(argv)
    if args.command == "mark":
        for path in lessons():
            print(f"{'marked' if mark(path) else 'unchanged'} {path.name}")
    elif args.command == "vendor":
        print(f"{fetch_vendor()} holds {', '.join(f'{n} {v}' for n, v in VENDORED.items())}")
    else:
        vendor = None if args.cdn else (args.vendor or local_copies(VENDOR))
        editions = (args.edition,) if args.edition else tuple(EDITIONS)
        build(vendor, only=args.lessons or None, editions=editions)
        if vendor is None:
            print("These decks load reveal.js & co from CDNs: they need the internet.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
