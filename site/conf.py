"""The course as a website: Sphinx, MyST-NB and the sphinx-book-theme (`make site`).

    sphinx-build -c site . build/site      # what `make site` runs, from the repository's root

The source root is the repository's root, so the links between notebooks, exercises and
solutions resolve as they do in JupyterLab; only course material is read (`include_patterns`).
Notebooks are shown with their stored outputs, never executed here: the stepper's output is
its static page (a slider with its own script), so it works with no kernel and no CDN.

Both editions are one site: each page links to its twin in the other language (`twin`), and
the sidebar lists the pages of the page's own edition (`SECTIONS`). Sphinx has one `language`
per build (English here), so a Chinese page's chrome ("Search", the page's contents, the
theme's buttons) is said in Chinese by the gettext catalogues Sphinx and the two themes ship
(`chrome_translations`), given to that page's templates in place of the build's. Lessons
01–04 and the exercises link to the same notebook in JupyterLite (`lite/`, built by `make
lite`). Code spans
naming a page's source (`notebooks/02_chunks_to_lines.ipynb`) become links to it, so the
README's course map, the site's home page, links to every lesson.

Deliberately not done: linkify (it would turn `calc.py` into a web address), executing
notebooks, fetching anything from the network.
"""

from __future__ import annotations

import gettext
import posixpath
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

project = "streaming-course"
author = "the streaming-course authors"
copyright = "the streaming-course authors"
root_doc = "README"
language = "en"

extensions = ["myst_nb"]
templates_path = ["_templates"]

# Course material only; everything else in the repository (code, tests, build/, .venv/) is
# not a page. Images a page shows are copied whatever these say.
include_patterns = [
    "README.md",
    "README.zh-CN.md",
    "TEACHING.md",
    "TEACHING.zh-CN.md",
    "teaching/*.md",
    "teaching/zh/*.md",
    "notebooks/*.ipynb",
    "notebooks/bonus/*.ipynb",
    "notebooks/zh/*.ipynb",
    "notebooks/zh/bonus/*.ipynb",
    "exercises/*.ipynb",
    "exercises/zh/*.ipynb",
    "solutions/*.ipynb",
    "solutions/zh/*.ipynb",
]
exclude_patterns = ["build", ".venv", "**/.ipynb_checkpoints", "my_client"]

# The stored outputs, as committed (`scripts/execute_notebooks.py` made them).
nb_execution_mode = "off"
# Headings get anchors as GitHub makes them, so `page.md#a-heading` resolves.
myst_heading_anchors = 3
myst_enable_extensions: list[str] = []  # no linkify: `calc.py` stays code, not a link
# A bonus notebook's heading levels skip one (H1 to H3): a matter for the notebook, not the site.
suppress_warnings = ["myst.header"]

html_theme = "sphinx_book_theme"
html_title = "streaming-course"
html_short_title = "streaming-course"
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_favicon = "_static/favicon.svg"  # else each page's request for /favicon.ico fails
html_additional_pages = {"index": "home.html"}  # index.html leads to the README
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    "show_toc_level": 2,
    # The pages of both editions share one order, so "previous" and "next" would cross from
    # one language to the other: the sidebar of each edition is the way through instead.
    "show_prev_next": False,
}
# The reader's system setting until they choose (the theme's default is empty, which its
# script reports on every page as an invalid mode).
html_context = {"default_mode": "auto"}

# -- the two editions ---------------------------------------------------------------

# (English folder or page, Chinese folder or page): a page's twin swaps one for the other.
TWIN_FOLDERS = (
    ("notebooks/", "notebooks/zh/"),
    ("exercises/", "exercises/zh/"),
    ("solutions/", "solutions/zh/"),
    ("teaching/", "teaching/zh/"),
)
TWIN_PAGES = (("README", "README.zh-CN"), ("TEACHING", "TEACHING.zh-CN"))

# The sidebar of each edition: (caption, the pages, as patterns of page names, in order; a
# section's last pattern takes any page its folder gains, so that no page is left out).
SECTIONS = {
    "en": (
        ("Lessons", ("notebooks/[0-9]*", "notebooks/*")),
        ("Bonus notebooks", ("notebooks/bonus/*",)),
        ("Exercises", ("exercises/*",)),
        ("Solutions", ("solutions/*",)),
        (
            "Teaching",
            (
                "TEACHING",
                "teaching/cheatsheet",
                "teaching/exercises",
                "teaching/[0-9]*",
                "teaching/*",
            ),
        ),
    ),
    "zh": (
        ("课程", ("notebooks/zh/[0-9]*", "notebooks/zh/*")),
        ("加餐", ("notebooks/zh/bonus/*",)),
        ("练习", ("exercises/zh/*",)),
        ("解答", ("solutions/zh/*",)),
        (
            "教师用书",
            (
                "TEACHING.zh-CN",
                "teaching/zh/cheatsheet",
                "teaching/zh/exercises",
                "teaching/zh/[0-9]*",
                "teaching/zh/*",
            ),
        ),
    ),
}
HOME = {"en": "README", "zh": "README.zh-CN"}

# The words the site adds to a page, in each edition.
WORDS = {
    "en": {
        "twin": "中文版",
        "twin_lang": "zh-CN",
        "html_lang": "en",
        "run": "Run in your browser",
        "run_note": "(JupyterLite: nothing to install)",
        "check": "Check your work locally, in a clone of the course:",
        "check_all": "make progress",
        "check_all_note": " (every exercise's checks, one row each); this one alone: ",
        "home": "Home",
        "solution": "Solution",
    },
    "zh": {
        "twin": "English",
        "twin_lang": "en",
        "html_lang": "zh-CN",
        "run": "在浏览器里运行",
        "run_note": "（JupyterLite：什么都不用安装）",
        "check": "在本地检查你的答案（先克隆课程）：",
        "check_all": "make progress-zh",
        "check_all_note": "（运行每个练习的检查，每个练习一行）；只查这一个：",
        "home": "首页",
        "solution": "解答",
    },
}

# The notebooks that run in JupyterLite (pure Python: no sockets), by page name.
LITE = ("notebooks/0[1-4]_*", "notebooks/zh/0[1-4]_*", "exercises/*", "exercises/zh/*")
LITE_LAB = "lite/lab/index.html"  # made by `make lite`, at the site's root


# Each edition's locale, as Sphinx and the themes name their catalogues' folders.
CHROME_LOCALES = {"zh": ("zh_CN", "zh")}


@cache
def chrome_translations(lang: str, domain: str) -> gettext.NullTranslations:
    """The catalogues of Sphinx and its themes for the edition `lang`, in `domain` ("sphinx":
    Sphinx's and pydata-sphinx-theme's words; "booktheme": sphinx-book-theme's), the first to
    know a message answering (then Sphinx's, for the book theme); English (no translation)
    for the English edition."""
    import pydata_sphinx_theme
    import sphinx
    import sphinx_book_theme

    folders = {
        "sphinx": [
            Path(sphinx.__file__).parent / "locale",
            Path(pydata_sphinx_theme.__file__).parent / "locale",
        ],
        "booktheme": [Path(sphinx_book_theme.get_html_theme_path()) / "static" / "locales"],
    }[domain]
    # The book theme's catalogue lacks some words Sphinx's has ("Search"): Sphinx's answers then.
    found = (
        gettext.NullTranslations() if domain == "sphinx" else chrome_translations(lang, "sphinx")
    )
    for folder in reversed(folders):  # the last added answers last
        for locale in CHROME_LOCALES.get(lang, ()):
            if (folder / locale / "LC_MESSAGES" / f"{domain}.mo").exists():
                more = gettext.translation(domain, folder, languages=[locale])
                more.add_fallback(found)
                found = more
                break
    return found


def matches(docname: str, pattern: str) -> bool:
    """fnmatch on page names, where `*` stays inside one folder."""
    return docname.count("/") == pattern.count("/") and fnmatchcase(docname, pattern)


def edition(docname: str) -> str:
    """The edition of a page: "zh" or "en"."""
    chinese = docname in {zh for _, zh in TWIN_PAGES} or any(
        docname.startswith(zh) for _, zh in TWIN_FOLDERS
    )
    return "zh" if chinese else "en"


def twin(docname: str) -> str:
    """The page's name in the other edition (whether or not that page exists).

    >>> twin("notebooks/02_chunks_to_lines"), twin("teaching/zh/cheatsheet"), twin("README")
    ('notebooks/zh/02_chunks_to_lines', 'teaching/cheatsheet', 'README.zh-CN')
    """
    for en, zh in TWIN_PAGES:
        if docname in (en, zh):
            return zh if docname == en else en
    for en, zh in TWIN_FOLDERS:
        if docname.startswith(zh):
            return en + docname[len(zh) :]
    for en, zh in TWIN_FOLDERS:
        if docname.startswith(en):
            return zh + docname[len(en) :]
    return docname


def section_pages(found: set[str], patterns: tuple[str, ...]) -> list[str]:
    """The pages of one sidebar section, pattern by pattern, each pattern's sorted."""
    pages: list[str] = []
    for pattern in patterns:
        pages += sorted(doc for doc in found if matches(doc, pattern) and doc not in pages)
    return pages


def add_toctrees(app: Any, docname: str, source: list[str]) -> None:
    """The home page of each edition gets a hidden table of contents (the order of the
    previous and next links); the files themselves stay as GitHub shows them."""
    for lang, home in HOME.items():
        if docname != home:
            continue
        found = app.env.found_docs
        pages = [p for _, patterns in SECTIONS[lang] for p in section_pages(found, patterns)]
        if lang == "en" and HOME["zh"] in found:
            pages.append(HOME["zh"])
        entries = "\n".join("/" + page for page in pages)
        source[0] += f"\n\n```{{toctree}}\n:hidden:\n\n{entries}\n```\n"


def link_source_paths(app: Any, doctree: nodes.document, docname: str) -> None:
    """A code span that names a page's source (`notebooks/02_chunks_to_lines.ipynb`, as
    the course map does) becomes a link to that page."""
    env = app.env
    by_path = {env.doc2path(doc, False).as_posix(): doc for doc in env.found_docs}
    for literal in list(doctree.findall(nodes.literal)):
        target = by_path.get(literal.astext())
        if target is None or isinstance(literal.parent, nodes.reference):
            continue
        uri = app.builder.get_relative_uri(docname, target)
        reference = nodes.reference("", "", internal=True, refuri=uri)
        literal.replace_self(reference)
        reference += literal


class FolderLinks(SphinxPostTransform):
    """A Markdown link to a folder of pages (`[the exercises](../exercises/)`, which JupyterLab
    opens as a folder) leads to the folder's first page; before MyST resolves links (9)."""

    default_priority = 8

    def run(self, **kwargs: Any) -> None:
        found = self.env.found_docs
        for node in self.document.findall(addnodes.pending_xref):
            if node.get("reftype") != "myst" or node.get("refdomain") == "doc":
                continue
            folder = posixpath.dirname(node.get("refdoc", self.env.docname))
            target = posixpath.normpath(posixpath.join(folder, node["reftarget"]))
            pages = sorted(doc for doc in found if posixpath.dirname(doc) == target)
            if pages:
                node["refdomain"], node["reftarget"], node["reftargetid"] = "doc", pages[0], None


def page_context(
    app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """What `_templates/` adds to a page: the link to its twin, the run-in-the-browser link,
    how to check an exercise, the sidebar of its edition, and its language."""
    env = app.env
    lang = edition(pagename)
    words = WORDS[lang]
    context["language"] = words["html_lang"]
    if lang != "en":  # the theme's words in the page's language, not the build's
        sphinx_words = chrome_translations(lang, "sphinx")
        book_words = chrome_translations(lang, "booktheme")
        context["gettext"], context["ngettext"] = sphinx_words.gettext, sphinx_words.ngettext
        context["translate"] = book_words.gettext
        context["theme_search_bar_text"] = book_words.gettext("Search") + "..."
    other = twin(pagename)
    found = env.found_docs
    twin_page = other if other in found else HOME["zh" if lang == "en" else "en"]
    context["course"] = {
        "words": words,
        "twin": app.builder.get_relative_uri(pagename, twin_page) if pagename in found else None,
        "lite": None,
        "exercise": None,
        "home": app.builder.get_relative_uri(pagename, HOME[lang]),
        "at_home": pagename == HOME[lang],
        "sections": [
            (
                caption,
                [
                    (
                        env.titles[page].astext(),
                        app.builder.get_relative_uri(pagename, page),
                        page == pagename,
                    )
                    for page in section_pages(found, patterns)
                ],
            )
            for caption, patterns in SECTIONS[lang]
        ],
    }
    if pagename not in found:  # search, genindex: no source, no twin
        return
    source = env.doc2path(pagename, False).as_posix()
    if any(matches(pagename, pattern) for pattern in LITE):
        lite = posixpath.relpath(LITE_LAB, posixpath.dirname(pagename) or ".")
        context["course"]["lite"] = f"{lite}?path={source}"
    if pagename.startswith("exercises/"):
        context["course"]["exercise"] = source
    if pagename.startswith("solutions/"):  # its heading is its exercise's: the tab says which
        context["title"] = f"{words['solution']} · {context['title']}"


def setup(app: Any) -> dict[str, Any]:
    app.add_post_transform(FolderLinks)
    app.connect("source-read", add_toctrees)
    app.connect("doctree-resolved", link_source_paths)
    # After the theme's own handler (500), which sets the book theme's words for the build.
    app.connect("html-page-context", page_context, priority=900)
    return {"parallel_read_safe": True}
