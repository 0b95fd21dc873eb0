// The course's decks: every slide fits the screen (slides.py, "fit"). Once reveal.js has laid
// the deck out, each slide whose content is taller than reveal's slide height is cut: the
// blocks that do not fit (cells, or a cell's paragraphs, code and outputs, a list's items, a
// table's rows, a block of code or output by whole lines) move to a new slide below it, and
// the slide that goes on below shows a cue at its foot. A block of code cut between lines
// keeps its colours: a span that crosses the cut (a string or comment of several lines) ends
// at the cut and starts again, with the same class, on the slide below. Each piece of a cut
// block says which piece it is (data-course-part: 0 on the first, 1, 2... below it), so that
// its pieces can be read back as one. Only what cannot be cut (a picture, one line taller
// than a slide) scrolls inside a frame whose foot shows that it goes on.
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
  function piecesOf(element) {  // the pieces `element` may be cut between, top to bottom
    if (element.classList.contains("ss-root") || element.querySelector(".ss-root")) {
      return [];  // the stepper stays whole
    }
    if (element.classList.contains("jp-MarkdownCell")) {
      var markdown = element.querySelector(".jp-RenderedMarkdown, .jp-RenderedHTMLCommon");
      return markdown ? Array.from(markdown.children) : [];
    }
    if (element.classList.contains("jp-CodeCell")) {
      var input = element.querySelector(".jp-Cell-inputWrapper");
      var outputs = Array.from(element.querySelectorAll(".jp-OutputArea-child"));
      return (input ? [input] : []).concat(outputs);
    }
    if (element.matches("ol, ul, blockquote")) return Array.from(element.children);
    if (element.matches("table")) {  // its rows; its head stays on each part
      return Array.from(element.querySelectorAll(":scope > tbody > tr"));
    }
    if (element.querySelector(":scope > .jp-Cell")) {  // a fragment: the cells a click shows
      return Array.from(element.children);
    }
    return [];
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
  function continued(copy) {  // what goes on below was shown above: no click shows it again
    if (copy.classList.contains("fragment")) copy.classList.remove("fragment", "visible");
  }
  function follow(element, path) {  // the piece at `path` (indices, level by level) of `element`
    return path.reduce(function (at, index) { return piecesOf(at)[index]; }, element);
  }
  function codeOf(leaf) {  // the block of code or output text that `leaf` is, or holds alone
    if (leaf.matches("pre")) return leaf;
    var blocks = leaf.querySelectorAll("pre");
    var alone = blocks.length === 1 && blocks[0].textContent.trim() === leaf.textContent.trim();
    return alone ? blocks[0] : null;  // (what else it holds would go on both slides)
  }
  function lineEnd(block, count) {  // the point right after the `count`-th line break in `block`
    var walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT), node, seen = 0;
    while ((node = walker.nextNode())) {
      for (var at = node.data.indexOf("\n"); at >= 0; at = node.data.indexOf("\n", at + 1)) {
        if (++seen === count) return [node, at + 1];
      }
    }
    return null;
  }
  function keepLines(block, count, first) {  // its first `count` lines, or all but those
    var point = lineEnd(block, count), range = document.createRange();
    if (first) { range.setStart(point[0], point[1]); range.setEnd(block, block.childNodes.length); }
    else { range.setStart(block, 0); range.setEnd(point[0], point[1]); }
    range.deleteContents();  // a span the cut crosses keeps its part of the text, and its class
  }
  function cutLines(section, top, path, block) {  // `block` cut after the most lines that fit
    var whole = block.cloneNode(true);
    var text = block.textContent;
    var breaks = text.split("\n").length - 1 - (text.endsWith("\n") ? 1 : 0);
    function restore() {
      block.replaceChildren.apply(block, Array.from(whole.cloneNode(true).childNodes));
    }
    function fits(count) {
      restore();
      keepLines(block, count, true);
      return bottom(section, top) <= room - CUE_ROOM && section.scrollHeight <= room;
    }
    var low = 0, high = breaks;  // fits(low) holds (or low is 0); fits(high + 1) fails
    while (low < high) {
      var middle = Math.ceil((low + high) / 2);
      if (fits(middle)) low = middle; else high = middle - 1;
    }
    restore();
    if (low === 0) return null;  // not even one line fits: it cannot be cut
    // The slide below starts with a line of code, not blank lines: at a blank line (between
    // two functions) if there is one in the lower half of what fits, else above the blanks.
    var lines = text.split("\n"), blank = function (n) { return !lines[n].trim(); };
    var at = low;
    while (at > low / 2 && !(blank(at - 1) && !blank(at))) at--;
    if (at <= low / 2) for (at = low; at > 1 && blank(at); ) at--;
    low = at;
    var copy = top.cloneNode(true);
    var rest = codeOf(follow(copy, path));
    keepLines(block, low, true);
    keepLines(rest, low, false);
    rest.setAttribute("data-course-part", Number(block.getAttribute("data-course-part") || 0) + 1);
    block.setAttribute("data-course-part", block.getAttribute("data-course-part") || "0");
    continued(copy);
    return [section, below(section, [copy])];
  }
  function fitOne(section) {  // the slides to fit again if `section` was cut, else null
    return shown(section, function () {
      var budget = room - CUE_ROOM;
      var children = Array.from(section.children);
      if (!children.length || section.scrollHeight <= room) return null;
      var first = children.findIndex(function (child) { return bottom(section, child) > budget; });
      if (first < 0) first = children.length - 1;  // what overflows is the margin below it
      if (first > 0) return below(section, children.slice(first));
      // The first block alone is too tall: cut inside it, between its pieces, going down
      // through pieces that are alone in what holds them (a fragment of one cell, a cell
      // whose only piece is its code) to the first level with more than one.
      var top = children[0], leaf = top, path = [], pieces, cut;
      for (;;) {
        pieces = piecesOf(leaf);
        cut = pieces.findIndex(function (piece) { return bottom(section, piece) > budget; });
        if (cut < 0) cut = pieces.length - 1;  // what overflows is the margin below the last
        if (cut === 0 && pieces.length === 1) { path.push(0); leaf = pieces[0]; continue; }
        if (cut === 0) cut = 1;  // the first piece, too tall, on its own
        break;
      }
      if (cut > 0) {  // this slide is fitted again: its last piece may still be too tall
        var copy = top.cloneNode(true);
        var copied = follow(copy, path);
        pieces.slice(cut).forEach(function (piece) { piece.remove(); });
        piecesOf(copied).slice(0, cut).forEach(function (piece) { piece.remove(); });
        if (copied.matches("ol")) copied.setAttribute("start", leaf.start + cut);
        continued(copy);
        return [section, below(section, [copy].concat(children.slice(1)))];
      }
      if (children.length > 1) {  // the rest below; this slide is fitted again, alone
        return [section, below(section, children.slice(1))];
      }
      // One piece taller than a slide: a block of code or output is cut between its lines.
      var block = codeOf(leaf);
      var lines = block && cutLines(section, top, path, block);
      if (lines) return lines;
      // What cannot be cut: a frame that scrolls, its foot saying it goes on.
      var tall = leaf;
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
