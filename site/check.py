"""Build the course's website and check its links: every internal href and src of every page
leads to a file of the site, and every #anchor to an id in its page.

    python site/check.py build/site     # after `make site`: what is broken, what leads out

External links (another host) are listed, never fetched. Links into JupyterLite (`lite/`,
built by `make lite`) are checked when that folder was built, and listed otherwise.
The HTML is read with the standard library's `html.parser`.

Deliberately not handled: links written by a page's script at run time.
"""

from __future__ import annotations

import posixpath
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
LITE = "lite/"  # JupyterLite's folder at the site's root (`make lite`)
LINKING = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src"}


def build(out: Path, doctrees: Path, source: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run Sphinx as `make site` does, on the repository at `source`, into `out`; any warning
    makes it fail (the warnings are in its stderr)."""
    command = [
        sys.executable, "-m", "sphinx", "-q", "-E", "-W", "--keep-going", "-b", "html",
        "-c", str(source / "site"), "-d", str(doctrees), str(source), str(out),
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, check=False)


class _Page(HTMLParser):
    """The ids of one HTML page, and the links it holds (tag, URL)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("id", "name") if tag == "a" else ("id",):
            if values.get(name):
                self.ids.add(str(values[name]))
        url = values.get(LINKING.get(tag, ""))
        if url is not None:
            self.links.append(url)


@dataclass
class Report:
    """What `check_site` found: broken links (page, URL, why), external URLs, and links into
    an unbuilt `lite/` (page, URL)."""

    broken: list[tuple[str, str, str]] = field(default_factory=list)
    external: set[str] = field(default_factory=set)
    lite_unbuilt: list[tuple[str, str]] = field(default_factory=list)
    pages: int = 0


def check_site(site: Path) -> Report:
    """Every link of every `.html` page under `site` (a built site's root); `_static/` holds
    the theme's files, not pages (its `.html` files are the theme's template macros)."""
    parsed: dict[str, _Page] = {}
    for path in sorted(site.rglob("*.html")):
        if path.relative_to(site).parts[0] == "_static":
            continue
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        parsed[path.relative_to(site).as_posix()] = page
    report = Report(pages=len(parsed))
    lite_built = (site / LITE).is_dir()
    for name, page in parsed.items():
        for url in page.links:
            parts = urlsplit(url)
            if parts.scheme in ("data", "javascript") or url in ("", "#"):
                continue
            if parts.scheme or parts.netloc:
                report.external.add(url)
                continue
            target = posixpath.normpath(
                posixpath.join(posixpath.dirname(name), unquote(parts.path))
            )
            if not parts.path:
                target = name
            if target.startswith("../") or target == "..":
                report.broken.append((name, url, "leads outside the site"))
                continue
            if (target + "/").startswith(LITE) and not lite_built:
                report.lite_unbuilt.append((name, url))
                continue
            file = site / target
            if file.is_dir():
                file, target = file / "index.html", posixpath.join(target, "index.html")
            if not file.is_file():
                report.broken.append((name, url, "no such file"))
            elif parts.fragment and target.endswith(".html"):
                if target not in parsed:
                    continue  # a page of lite/: its own tool's pages
                if unquote(parts.fragment) not in parsed[target].ids:
                    report.broken.append((name, url, "no such anchor"))
    return report


def main(argv: list[str]) -> int:
    site = Path(argv[0] if argv else "build/site")
    report = check_site(site)
    for url in sorted(report.external):
        print(f"external (not fetched): {url}")
    if report.lite_unbuilt:
        print(f"{len(report.lite_unbuilt)} links into lite/, not built yet (make lite), e.g.")
        print(f"  {report.lite_unbuilt[0][0]} -> {report.lite_unbuilt[0][1]}")
    for page, url, why in report.broken:
        print(f"BROKEN {page} -> {url}: {why}")
    print(
        f"{report.pages} pages; {len(report.broken)} broken links; {len(report.external)} "
        f"external links listed; {len(report.lite_unbuilt)} links into an unbuilt lite/"
    )
    return 1 if report.broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
