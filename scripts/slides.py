"""The lessons as reveal.js slide decks, for a teacher at a projector.

    python scripts/slides.py build                  # build/slides/NN_name.slides.html
    python scripts/slides.py build 01 04            # ... only those lessons
    python scripts/slides.py build --vendor DIR     # ... using local copies of reveal.js & co
    python scripts/slides.py vendor                 # fetch them (npm) into build/slides/vendor
    python scripts/slides.py mark                   # authors: set every cell's slide type

`make slides` runs `build`. A deck is the notebook as committed (outputs
included) through nbconvert's `SlidesExporter`; by default the page loads
reveal.js, jQuery and RequireJS from a CDN, so it needs the internet when it is
opened. `vendor` fetches the same libraries once with `npm pack`, and
`build --vendor` points the decks at them: they then open offline.

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
"""

from __future__ import annotations

import argparse
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
# What nbconvert's reveal template loads, at versions it is written for (npm package, version).
VENDORED = {"reveal.js": "4.0.2", "jquery": "3.7.1", "requirejs": "2.3.7"}


def lessons() -> list[Path]:
    """The lesson notebooks, in order."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


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


def exporter(vendor: Path | None, out: Path) -> SlidesExporter:
    """nbconvert's slides exporter: scrolling slides; local libraries if `vendor` is given
    (as paths relative to `out`, where the decks are written)."""
    slides = SlidesExporter()
    slides.reveal_scroll = True  # a long cell scrolls instead of running off the slide
    slides.reveal_theme = "simple"
    if vendor is not None:
        base = Path(os.path.relpath(vendor.resolve(), out.resolve())).as_posix()
        slides.reveal_url_prefix = f"{base}/reveal.js"
        slides.jquery_url = f"{base}/jquery/dist/jquery.min.js"
        slides.require_js_url = f"{base}/requirejs/require.js"
    return slides


def build(vendor: Path | None = None, out: Path = OUT, only: list[str] | None = None) -> list[Path]:
    """Write one deck per lesson into `out` (or only for the lessons whose names start
    with one of `only`); the decks' paths."""
    out.mkdir(parents=True, exist_ok=True)
    slides = exporter(vendor, out)
    decks = []
    chosen = [p for p in lessons() if only is None or any(p.stem.startswith(o) for o in only)]
    if not chosen:
        names = ", ".join(p.stem for p in lessons())
        raise SystemExit(f"no lesson starts with {' or '.join(only or [])}: choose from {names}")
    for path in chosen:
        body, _ = slides.from_filename(str(path))
        deck = out / f"{path.stem}.slides.html"
        deck.write_text(body, encoding="utf-8")
        decks.append(deck)
        print(f"wrote {deck.relative_to(ROOT) if deck.is_relative_to(ROOT) else deck}")
    return decks


def fetch_vendor(target: Path = OUT / "vendor") -> Path:
    """Download reveal.js, jQuery and RequireJS with `npm pack` into `target` (one folder
    each, as their npm packages hold them). Needs npm and the npm registry."""
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name, version in VENDORED.items():
            subprocess.run(
                ["npm", "pack", "--silent", f"{name}@{version}"], cwd=scratch, check=True
            )
            unpacked = Path(scratch) / name
            with tarfile.open(next(Path(scratch).glob(f"{name}-{version}.tgz"))) as archive:
                archive.extractall(unpacked, filter="data")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.move(unpacked / "package", target / name)  # npm packs into package/
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["build", "mark", "vendor"])
    parser.add_argument("--vendor", type=Path, help="build: local copies from `vendor`")
    parser.add_argument("lessons", nargs="*", help="build: only these (name prefixes: 01 04)")
    args = parser.parse_args(argv)
    if args.command == "mark":
        for path in lessons():
            print(f"{'marked' if mark(path) else 'unchanged'} {path.name}")
    elif args.command == "vendor":
        print(f"fetched into {fetch_vendor()}")
    else:
        build(args.vendor, only=args.lessons or None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
