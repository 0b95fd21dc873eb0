"""`python -m streaming_lib class-link`: the link that brings the course into every learner's
home on a JupyterHub.

The link is nbgitpuller's (its documentation: "link.html" and "topic/url-options"):

    HUB/hub/user-redirect/git-pull?repo=...&branch=...&targetpath=...&urlpath=...

JupyterHub's `user-redirect` sends each learner to their own server; there nbgitpuller clones
the course into the folder `targetpath` names (`streaming-course`, whatever the repository is
called: the hub's configuration puts each learner's `my_client/` in `~/streaming-course/`, its
COURSE_FOLDER; `--folder` names another, the same as COURSE_FOLDER) or, when it is there
already, fetches and merges it by its own rules (a file the learner changed is kept as theirs,
a file they deleted comes back, a new file of theirs stays), then opens `urlpath`: the lesson,
in JupyterLab.

    python -m streaming_lib class-link --hub https://hub.example.edu
    python -m streaming_lib class-link --hub https://hub.example.edu --lesson 02 --lang zh

The repository is `--repo`, or else the clone's own `origin` remote; the branch is `--branch`
or, when not given, the one nbgitpuller picks (the remote's default). Nothing is sent
anywhere: the command prints the link.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from ..language import _

ROOT = Path(__file__).resolve().parents[2]  # the course's clone (an editable install)
LESSON_NUMBER = re.compile(r"^\d\d$")
FOLDER = (
    "streaming-course"  # the course's folder in each home: the hub configurations' COURSE_FOLDER
)
HUB_PAGES = {"hub", "user"}  # a path with these is a page of the hub, not its address


class NoOrigin(LookupError):
    """The clone has no `origin` remote (or is no git clone), and no `--repo` was given."""


class BadLink(ValueError):
    """A part of the link is not usable: the hub's URL, the repository's, or the lesson."""


def origin(where: Path = ROOT) -> str:
    """The URL of the `origin` remote of the git clone at `where` (str).

    Raises NoOrigin, saying where, if `where` is no clone or has no `origin`."""
    try:
        done = subprocess.run(
            ["git", "-C", str(where), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as error:  # no git at all
        raise NoOrigin(
            _("cannot ask git for the origin of {path}: {why}", path=str(where), why=str(error))
        ) from None
    url = done.stdout.strip()
    if done.returncode != 0 or not url:
        raise NoOrigin(
            _(
                "{path} has no git remote named origin: pass the course's repository "
                "with --repo URL",
                path=str(where),
            )
        )
    return url


def check_folder(folder: str) -> str:
    """`folder` (str), checked as the name of the course's folder in each home: one name, no
    path ("streaming-course").

    Raises BadLink when it is empty, a path, or hidden.

        >>> check_folder("streaming-course")
        'streaming-course'
        >>> check_folder("course/notebooks")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        streaming_lib.tools.classroom.BadLink: --folder course/notebooks: give one folder's name...
    """
    if not folder or folder != Path(folder).name or folder.startswith(".") or "\\" in folder:
        raise BadLink(
            _("--folder {name}: give one folder's name, such as streaming-course", name=folder)
        )
    return folder


def check_hub(hub: str) -> str:
    """The hub's public address `hub`, checked: http(s), a host, no query, fragment or space,
    and no page of the hub (".../hub/home", ".../user/NAME/lab"); returned without its
    trailing slash.

    Raises BadLink, saying what to give instead.

        >>> check_hub("https://hub.example.edu/course/")
        'https://hub.example.edu/course'
        >>> check_hub("https://hub.example.edu/hub/home")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        streaming_lib.tools.classroom.BadLink: --hub ...: give the hub's address only, without...
    """
    parts = urlsplit(hub)
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in hub):
        raise BadLink(
            _("--hub {url}: give the hub's address, such as https://hub.example.edu", url=hub)
        )
    if parts.query or parts.fragment or HUB_PAGES & set(parts.path.split("/")):
        base = f"{parts.scheme}://{parts.netloc}"
        raise BadLink(
            _(
                "--hub {url}: give the hub's address only, without a page of it (such as {base})",
                url=hub,
                base=base,
            )
        )
    return hub.rstrip("/")


def lesson_path(lesson: str, lang: str = "en", root: Path = ROOT) -> str:
    """The lesson `lesson` ("02") as a path inside the course ("notebooks/02_chunks_to_lines.
    ipynb"; with lang "zh", "notebooks/zh/02_chunks_to_lines.ipynb").

    Raises BadLink when `lesson` is not two digits or no lesson has that number."""
    if not LESSON_NUMBER.match(lesson):
        raise BadLink(_("--lesson {lesson}: give a lesson's two digits, such as 02", lesson=lesson))
    folder = Path("notebooks") if lang == "en" else Path("notebooks") / lang
    if not (root / folder).is_dir():
        raise BadLink(
            _(
                "{path} holds no lessons ({folder}): run class-link in the course's clone",
                path=str(root),
                folder=folder.as_posix(),
            )
        )
    found = sorted((root / folder).glob(f"{lesson}_*.ipynb"))
    if not found:
        there = sorted({p.name[:2] for p in (root / folder).glob("[0-9][0-9]_*.ipynb")})
        raise BadLink(
            _(
                "--lesson {lesson}: no such lesson in {path} (there: {lessons})",
                lesson=lesson,
                path=folder.as_posix(),
                lessons=", ".join(there),
            )
        )
    return (folder / found[0].name).as_posix()


def class_link(
    hub: str,
    repo: str | None = None,
    branch: str | None = None,
    lesson: str = "00",
    lang: str = "en",
    root: Path = ROOT,
    folder: str = FOLDER,
) -> str:
    """The nbgitpuller link (str) that pulls the course `repo` (None: `origin(root)`) at
    `branch` (None: nbgitpuller's default) into the folder `folder` of each learner's home
    on the JupyterHub at `hub` (its public URL, with any base URL, such as
    "https://hub.example.edu/course"), then opens lesson `lesson` ("00" to "07") of edition
    `lang` in JupyterLab.

    Raises BadLink for a hub URL that is not http(s) with a host or names a page of the hub,
    an empty repository, a folder that is not one name, or an unknown lesson; NoOrigin when
    `repo` is None and the clone has no origin.

        >>> link = class_link("https://hub.example.edu", "https://example.org/c.git", lesson="02")
        >>> print(link.replace("?", "\\n?").replace("&", "\\n&"))
        https://hub.example.edu/hub/user-redirect/git-pull
        ?repo=https%3A%2F%2Fexample.org%2Fc.git
        &targetpath=streaming-course
        &urlpath=lab%2Ftree%2Fstreaming-course%2Fnotebooks%2F02_chunks_to_lines.ipynb
    """
    hub = check_hub(hub)
    folder = check_folder(folder)
    path = lesson_path(lesson, lang, root)  # before asking git: a wrong lesson says so first
    repo = origin(root) if repo is None else repo
    if not repo.strip("/ "):
        raise BadLink(_("--repo {url}: give the course's git repository", url=repo))
    query = {"repo": repo}
    if branch:
        query["branch"] = branch
    query["targetpath"] = folder
    query["urlpath"] = f"lab/tree/{folder}/{path}"
    return f"{hub}/hub/user-redirect/git-pull?{urlencode(query)}"
