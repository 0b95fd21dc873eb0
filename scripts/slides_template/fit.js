// The course's decks: every slide fits the screen (slides.py, "fit"). Once reveal.js has laid
// the deck out, each slide whose content is taller than reveal's slide height is cut: the
// blocks that do not fit (cells, or a cell's paragraphs, code and outputs) move to a new slide
// below it, and the slide that goes on below shows a cue at its foot. A single block taller
// than a slide (a long code cell) scrolls inside a frame whose foot shows that it goes on.
var courseOpenedAt = location.hash;  // read before reveal.js starts (it may change it)

function courseFitSlides(Reveal) {
  var CUE_ROOM = 36;  // px kept at a cut slide's foot for its cue
  var room = Reveal.getConfig().height;

  function leaves() {
    return Array.from(document.querySelectorAll(".reveal .slides section")).filter(
      function (section) { return !section.querySelector("section"); });
  }
  function shown(section, measure) {  // lay a hidden slide out, measure, hide it again
    var touched = [section, section.parentElement].filter(function (s) {
      return s.tagName === "SECTION"; });
    var saved = touched.map(function (s) { return s.style.display; });
    touched.forEach(function (s) { s.style.display = "block"; });
    try { return measure(); } finally {
      touched.forEach(function (s, i) { s.style.display = saved[i]; });
    }
  }
  function scaleOf(section) {
    return section.getBoundingClientRect().width / section.offsetWidth || 1;
  }
  function bottom(section, element) {  // in the slide's own pixels, from its top
    return (element.getBoundingClientRect().bottom - section.getBoundingClientRect().top) /
      scaleOf(section);
  }
  function blocksOf(cell) {  // the pieces a cell may be cut into, top to bottom
    if (cell.querySelector(".ss-root")) return [];  // the stepper stays whole
    var markdown = cell.querySelector(".jp-RenderedMarkdown, .jp-RenderedHTMLCommon");
    if (cell.classList.contains("jp-MarkdownCell") && markdown) {
      return Array.from(markdown.children);
    }
    if (cell.classList.contains("jp-CodeCell")) {
      var input = cell.querySelector(".jp-Cell-inputWrapper");
      var outputs = Array.from(cell.querySelectorAll(".jp-OutputArea-child"));
      return (input ? [input] : []).concat(outputs);
    }
    return [];
  }
  function cellOf(element) {
    return element.classList.contains("jp-Cell") ? element : element.querySelector(".jp-Cell");
  }
  function below(section, children) {  // a new slide right below `section`, holding `children`
    var next = document.createElement("section");
    Array.from(section.attributes).forEach(function (attribute) {
      if (attribute.name !== "id") next.setAttribute(attribute.name, attribute.value);
    });
    next.classList.remove("present", "past", "future");
    children.forEach(function (child) { next.appendChild(child); });
    section.after(next);
    section.classList.add("course-continues");
    return next;
  }
  function fitOne(section) {  // the slides to fit again if `section` was cut, else null
    return shown(section, function () {
      var budget = room - CUE_ROOM;
      var children = Array.from(section.children);
      if (!children.length || section.scrollHeight <= room) return null;
      var first = children.findIndex(function (child) { return bottom(section, child) > budget; });
      if (first < 0) first = children.length - 1;  // what overflows is the margin below it
      if (first > 0) return below(section, children.slice(first));
      // The first block alone is too tall: cut inside it, between its pieces.
      var cell = cellOf(children[0]);
      var pieces = cell ? blocksOf(cell) : [];
      var cut = pieces.findIndex(function (piece) { return bottom(section, piece) > budget; });
      if (cut === 0 && pieces.length > 1) cut = 1;  // the first piece, too tall, on its own
      if (cut > 0) {  // this slide is fitted again: its last piece may still be too tall
        var copy = children[0].cloneNode(true);
        var copied = blocksOf(cellOf(copy));
        pieces.slice(cut).forEach(function (piece) { piece.remove(); });
        copied.slice(0, cut).forEach(function (piece) { piece.remove(); });
        return [section, below(section, [copy].concat(children.slice(1)))];
      }
      // One piece taller than a slide: a frame that scrolls, its foot saying it goes on.
      var tall = cut === 0 ? pieces[0] : children[0];
      if (children.length > 1) {  // the rest below; this slide is fitted again, alone
        return [section, below(section, children.slice(1))];
      }
      var height = Math.floor(budget - (bottom(section, tall) - tall.offsetHeight));
      var frame = document.createElement("div");  // a block, whatever `tall` displays as
      frame.className = "course-scrolls";
      frame.append.apply(frame, Array.from(tall.childNodes));
      tall.appendChild(frame);
      for (var tries = 0; tries < 4; tries++) {  // what lies around it counts too: again
        frame.style.maxHeight = height + "px";
        var over = section.scrollHeight - Math.min(section.clientHeight, room);
        if (over <= 0) break;
        height -= over;
      }
      return null;
    });
  }
  var queue = leaves(), cut = false;
  while (queue.length) {
    var next = fitOne(queue.shift());
    if (next) { queue.unshift.apply(queue, [].concat(next)); cut = true; }
  }
  if (cut) {  // the address the page was opened at is one of the fitted deck (reveal wrote it)
    Reveal.sync();
    var address = /^#\/(\d+)(?:\/(\d+))?/.exec(courseOpenedAt);
    if (address) Reveal.slide(Number(address[1]), Number(address[2] || 0));
    else Reveal.slide(Reveal.getIndices().h, Reveal.getIndices().v);
  }
  document.querySelector(".reveal").classList.add("course-fitted");
}
