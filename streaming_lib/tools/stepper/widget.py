"""The stepper widget: a slider through a stream, with every stage's state on screen.

In a notebook:

    from streaming_lib.tools.stepper import StreamStepper
    StreamStepper()                                  # the course fixture, 7-byte chunks
    StreamStepper("error_mid_stream", chunk_size=1)  # a fixture by name, a path, or bytes
    StreamStepper(lang="zh")                         # its labels in Chinese (i18n.STEPPER)

A front end that only reads: the frames come from `frames.compute_frames` and
their HTML from `html.render_panels`; this module wires ipywidgets controls
(a `Play` linked to an `IntSlider`, a chunk-size selector) to them. The
`Frames` of each chunk size are made once and kept; they make each frame when
the slider reaches it, so a capture of any size opens in one pass over it.

Shown where no kernel runs (nbviewer, GitHub, a course site), the stepper falls
back to its static page: `_repr_mimebundle_` puts it beside the widget view as
`text/html`, which a renderer uses when it has no widget state.

Deliberately not handled here: computing frames (`frames.py`), drawing them (`html.py`).

    >>> read_source(b"data: x\\n\\n")    # bytes are shown by their size
    (b'data: x\\n\\n', '9 bytes')
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from ..fixtures import FIXTURES_DIR, MAIN_FIXTURE
from ..i18n import STEPPER, words
from .frames import EVENT_BY_EVENT, ChunkSize, Frame, Frames, compute_frames
from .html import (
    JUMP,
    SPEEDS,
    ByteTokens,
    chosen_panels,
    heading_html,
    plan_label,
    render_panels,
    static_fragment,
    static_page,
)

# The chunk sizes offered by the selector: from "every byte is a chunk" to a
# size real networks deliver, and one event per step.
CHUNK_CHOICES: tuple[ChunkSize, ...] = (1, 3, 7, 64, EVENT_BY_EVENT)


def read_source(source: str | Path | bytes | None) -> tuple[bytes, str]:
    """The bytes of a stream and a name to show: `source` is bytes, a path, a fixture
    name ("truncated" for fixtures/truncated.sse), or None for the course fixture."""
    if source is None:
        source = MAIN_FIXTURE
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), f"{len(source)} bytes"
    path = Path(source)
    named = FIXTURES_DIR / f"{source}.sse"
    if not path.exists() and named.exists():
        path = named
    return path.read_bytes(), path.name


def static_html(
    source: str | Path | bytes | None = None,
    chunk_sizes: tuple[ChunkSize, ...] = (7,),
    panels: Sequence[str] | None = None,
    lang: str = "en",
) -> Any:
    """The static stepper as an `IPython.display.HTML` object: a slider that works
    without a kernel, with a chunk selector if several `chunk_sizes` are given, showing
    the panels named in `panels` (all for None), its labels in `lang` ("en" or "zh";
    ValueError for another)."""
    from IPython.display import HTML

    title = words(STEPPER, lang)["title"]
    raw, name = read_source(source)
    plans = {size: compute_frames(raw, size) for size in chunk_sizes}
    return HTML(static_fragment(raw, plans, title=f"{title} · {name}", panels=panels, lang=lang))


class StreamStepper(widgets.VBox):
    """A slider through stream `source`, chunk by chunk; displayable in a notebook.

    `source`: bytes, a path, a fixture name, or None for the course fixture.
    `chunk_size`: bytes per chunk, or "event" (`EVENT_BY_EVENT`) for one event per step.
    `panels`: the names of the panels to show, in any order (all for None): "bytes",
    "lines", "sse", "events", "content", "tools", "stop" (`html.PANEL_NAMES`); a lesson
    shows the stages it teaches. ValueError for an unknown name.
    `static_fallback`: also offer the static page (`text/html`) for renderers without widgets.
    `lang`: the language of the labels, controls, panel titles and the panels' own words (row
    labels, callouts, notes): "en" (default) or "zh" (`i18n.STEPPER`); ValueError for another.
    Event names, field names and what came from the stream stay as on the wire.

    Read it from code: `.frames` (a `Frames` sequence), `.frame` (the one on screen),
    `.slider.value` (the step), `.chunk_size`. Controls: `.play` (its pace set by `.speed`),
    `.slider`, `.back` and `.ahead` (ten steps), `.chunk_choice`; the panels are the `.panels`
    HTML widget. A new chunk size gets a new `.slider` (the browser's slider keeps its first
    range for Home and End): read `.slider` again after changing it.
    """

    def __init__(
        self,
        source: str | Path | bytes | None = None,
        chunk_size: ChunkSize = 7,
        *,
        interval: int = 400,
        panels: Sequence[str] | None = None,
        static_fallback: bool = True,
        lang: str = "en",
    ) -> None:
        say = words(STEPPER, lang)  # an unknown language fails here, before any widget is made
        self.lang = lang
        self.raw, self.name = read_source(source)
        chosen_panels(panels)  # an unknown name fails here, before any widget is made
        self.panel_names = None if panels is None else tuple(panels)
        self.static_fallback = static_fallback
        self._tokens = ByteTokens(self.raw)  # the bytes panel's HTML, made for the bytes shown
        self._event_items: dict[int, str] = {}  # the events panel's items, kept between steps
        self._frames_by_size: dict[ChunkSize, Frames] = {}  # made once per chunk size
        self._redrawing = True  # no redraw while the controls are being set up or re-ranged

        choices = CHUNK_CHOICES if chunk_size in CHUNK_CHOICES else CHUNK_CHOICES + (chunk_size,)
        self.play = widgets.Play(
            value=0,
            min=0,
            max=1,
            interval=interval,
            show_repeat=False,
            description=say["play_word"],
        )
        # Play's speed: a step every `interval` ms, `step` steps at a time (1-byte chunks
        # of the course fixture are 2,351 steps: "fast" plays them in about a minute).
        self.speed = widgets.Dropdown(
            options=[(say[label], (ms, by)) for label, ms, by in SPEEDS],
            value=(interval, 1) if (interval, 1) in [(ms, by) for _, ms, by in SPEEDS] else None,
            description=say["speed"],
            # Its label as wide as its words, and room for the longest choice ("fastest"):
            # a 150 px menu with the default label width cut "normal" short.
            style={"description_width": "initial"},
            layout=widgets.Layout(width="200px"),
        )
        self.speed.observe(self._on_speed, "value")
        self._link: Any = None  # the jslink of Play to the slider on screen
        self.slider = self._new_slider(0, len(self.frames_for(chunk_size)) - 1)
        # Steps of ten, as Shift+arrow does on the static page (the widget's slider only
        # knows arrows, PageUp/PageDown (five steps), Home and End).
        self.back = widgets.Button(description="−10", tooltip=say["back"])
        self.ahead = widgets.Button(description="+10", tooltip=say["ahead"])
        for button, by in ((self.back, -JUMP), (self.ahead, JUMP)):
            # As wide as its words, never squeezed (a fixed 48 px cut "−10" short at 150%).
            button.layout = widgets.Layout(width="auto", min_width="3.4em", flex="0 0 auto")
            button.on_click(lambda _, by=by: self._jump(by))
        self.chunk_choice = widgets.ToggleButtons(
            options=[(plan_label(size, lang), size) for size in choices],
            value=chunk_size,
            style={"button_width": "auto"},
            tooltips=[
                say["one_event_per_chunk"]
                if size == EVENT_BY_EVENT
                else say["chunks_of"].format(size=plan_label(size, lang))
                for size in choices
            ],
        )
        self.panels = widgets.HTML()
        heading = widgets.HTML(heading_html(self.name, len(self.raw), lang))
        # In a narrow notebook (a sidebar open, a zoomed screen) a row of controls wraps onto
        # the next line rather than squeeze a control until its words are cut.
        self.play.layout = widgets.Layout(flex="0 0 auto")
        self._controls = widgets.HBox(
            [self.play, self.back, self.slider, self.ahead],
            layout=widgets.Layout(width="100%", flex_flow="row wrap"),
        )
        label = widgets.Label(say["chunk_size"], layout=widgets.Layout(width="auto"))
        label.layout.flex = "0 0 auto"
        sizes = widgets.HBox(
            [label, self.chunk_choice, self.speed], layout=widgets.Layout(flex_flow="row wrap")
        )
        super().__init__([heading, self._controls, sizes, self.panels])
        self.add_class("ss-stepper")

        self.chunk_choice.observe(self._on_chunk_size, "value")
        self._range_to(chunk_size, step=0)

    # -- reading -------------------------------------------------------------------

    @property
    def chunk_size(self) -> ChunkSize:
        return self.chunk_choice.value

    @property
    def frames(self) -> Frames:
        """Every frame at the current chunk size (each made when read)."""
        return self.frames_for(self.chunk_size)

    @property
    def frame(self) -> Frame:
        """The frame on screen."""
        return self.frames[self.slider.value]

    def frames_for(self, chunk_size: ChunkSize) -> Frames:
        """Every frame at `chunk_size` (the `Frames` made on first use, then kept)."""
        if chunk_size not in self._frames_by_size:
            self._frames_by_size[chunk_size] = compute_frames(self.raw, chunk_size)
        return self._frames_by_size[chunk_size]

    # -- reacting to the controls ------------------------------------------------------

    def _on_step(self, change: dict[str, Any]) -> None:
        if not self._redrawing:
            self._draw()

    def _on_chunk_size(self, change: dict[str, Any]) -> None:
        # Stay at the same place in the stream: the first step that has received
        # as many bytes as the one on screen (the end of stream stays the end).
        old = self.frames_for(change["old"])[
            min(self.slider.value, len(self.frames_for(change["old"])) - 1)
        ]
        frames = self.frames_for(change["new"])
        step = len(frames) - 1 if old.kind == "end" else frames.step_reaching(old.end)
        self._range_to(change["new"], step)

    def _new_slider(self, value: int, last: int) -> widgets.IntSlider:
        """A step slider from 0 to `last`, linked to Play and redrawing the panels."""
        slider = widgets.IntSlider(
            value=value,
            min=0,
            max=last,
            description=words(STEPPER, self.lang)["step"],
            continuous_update=True,
            # Room to aim at a step (a track of 200 px or more): it grows with the row, and
            # where the row has less room it wraps onto a line of its own.
            style={"description_width": "initial"},
            layout=widgets.Layout(flex="1 1 300px", min_width="300px"),
        )
        self._link = widgets.jslink((self.play, "value"), (slider, "value"))  # playing moves it
        slider.observe(self._on_step, "value")
        return slider

    def _range_to(self, chunk_size: ChunkSize, step: int) -> None:
        last = len(self.frames_for(chunk_size)) - 1
        self._redrawing = True  # changing max may clamp the value: draw once, at the end
        try:
            if self.slider.max != last:
                # A new slider for a new range: the browser's slider keeps its first range
                # for the Home and End keys, so End would stop at the old last step.
                self._link.unlink()
                self.slider.unobserve(self._on_step, "value")
                self.slider.close()
                self.slider = self._new_slider(min(step, last), last)
                children = list(self._controls.children)
                children[2] = self.slider
                self._controls.children = tuple(children)
            if self.play.max < last:
                self.play.max = last
            self.play.value = min(step, last)
            self.play.max = last
            self.slider.value = min(step, last)
        finally:
            self._redrawing = False
        self._draw()

    def _jump(self, by: int) -> None:
        self.slider.value = min(max(self.slider.value + by, 0), self.slider.max)

    def _on_speed(self, change: dict[str, Any]) -> None:
        if change["new"] is not None:
            self.play.interval, self.play.step = change["new"]

    def _draw(self) -> None:
        frames = self.frames
        self.panels.value = render_panels(
            self._tokens,
            frames[self.slider.value],
            len(frames),
            len(self.raw),
            self.panel_names,
            self.lang,
            self._event_items,
        )

    # -- without a kernel -----------------------------------------------------------------

    def to_html(
        self, path: str | Path | None = None, chunk_sizes: tuple[ChunkSize, ...] | None = None
    ) -> str:
        """A self-contained HTML page with the frames of the current chunk size, or of each of
        `chunk_sizes` with a selector (every step, or `html.PAGE_FRAMES` evenly spaced ones,
        as the page says); written to `path` too if given."""
        sizes = chunk_sizes or (self.chunk_size,)
        page = static_page(
            self.raw,
            {size: self.frames_for(size) for size in sizes},
            title=f"{words(STEPPER, self.lang)['title']} · {self.name}",
            panels=self.panel_names,
            lang=self.lang,
        )
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

    @classmethod
    def static(
        cls,
        source: str | Path | bytes | None = None,
        chunk_size: ChunkSize = 7,
        *,
        chunk_sizes: tuple[ChunkSize, ...] | None = None,
        lang: str = "en",
    ) -> Any:
        """The static stepper, for `display()`: works on nbviewer and in exported HTML."""
        return static_html(source, chunk_sizes or (chunk_size,), lang=lang)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/plain"] = repr(self)
            if self.static_fallback:
                plans = {self.chunk_size: self.frames}
                bundle["text/html"] = static_fragment(
                    self.raw,
                    plans,
                    title=f"{words(STEPPER, self.lang)['title']} · {self.name}",
                    panels=self.panel_names,
                    lang=self.lang,
                )
        return bundle

    def __repr__(self) -> str:
        shown = "" if self.panel_names is None else f", panels={self.panel_names!r}"
        shown += "" if self.lang == "en" else f", lang={self.lang!r}"
        return f"StreamStepper({self.name!r}, chunk_size={self.chunk_size!r}{shown})"
