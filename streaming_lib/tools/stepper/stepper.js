// The static stepper page's script (html.py): it draws frame k of the chosen plan,
// nothing else. Python fills in the element id and the Shift+arrow jump for each page.
(function () {
  var script = document.currentScript, root = script && script.closest(".ss-static");
  if (!root) {  // run by eval (classic Notebook): the first copy of this page not started yet
    root = Array.from(document.querySelectorAll('[id="%(id)s"]')).find(function (copy) {
      return copy.querySelector(".ss-noscript");
    });
    if (!root) { return; }
  }
  root.querySelector(".ss-noscript").remove();  // shown only where this script cannot run
  root.querySelector(".ss-live").style.display = "";
  var data = JSON.parse(root.querySelector("script.ss-data").textContent);
  var slider = root.querySelector(".ss-slider"), select = root.querySelector(".ss-plan");
  var play = root.querySelector(".ss-play"), timer = null, received = 0;
  var total = data.tokens.length, limits = data.limits, words = data.words;
  // A template of the page's words (html.py: i18n.STEPPER) with its {fields} filled in.
  function say(key, fields) {
    return words[key].replace(/\{(\w+)\}/g, function (all, name) { return fields[name]; });
  }
  // A panel left out (`panels=`) has no slot: writing to a stand-in drops its HTML.
  function slot(name) { return root.querySelector('[data-slot="' + name + '"]') || {}; }
  function bytes(from, to) { return data.tokens.slice(from, to).join(""); }
  function plan() { return data.plans[select ? Number(select.value) : 0]; }
  // "… 1,234 earlier bytes" before a panel's window (note() in html.py: `_count_note`).
  function note(count, what) {
    if (!count) { return ""; }
    return '<span class="ss-dim">' + say("earlier", {count: count.toLocaleString("en-US"), what: words[what]}) + "</span>\n";
  }
  function status(row, last) {
    var kind = row[0], step = row[1], start = row[2], end = row[3], what;
    if (kind === 0) { what = say("status_start", {total: total}); }
    else if (kind === 2) { what = words.status_end; }
    else {
      what = say("status_chunk", {step: step, start: start, end: end, size: end - start, total: total});
    }
    var html = '<span class="ss-step">' + say("status_step", {step: step, last: last}) + "</span> " + what;
    if (row[8]) { html += ' <span class="ss-ok">' + words.status_complete + "</span>"; }
    return html;
  }
  function draw() {
    var shown = plan(), row = shown.frames[Number(slider.value)], items = shown.events;
    var start = row[2], end = row[3], cut = end - row[5], count = row[6], fresh = row[7];
    received = end;
    root.querySelector(".ss-thin").textContent = shown.note;
    slot("status").innerHTML = status(row, shown.last);
    var low = Math.max(0, end - limits.bytes), from = Math.max(start, low);
    slot("bytes").innerHTML = note(low, "bytes") + bytes(low, from) + '<mark class="ss-chunk">' + bytes(from, end) + "</mark>";
    var first = end - row[4], pendingLow = Math.max(first, end - limits.pending);
    slot("pending").innerHTML = note(pendingLow - first, "bytes") + bytes(pendingLow, cut) +
      (row[5] ? '<span class="ss-split">' + bytes(cut, end) + "</span>" : "");
    var eventsLow = Math.max(0, count - limits.events), old = Math.max(eventsLow, count - fresh);
    slot("events").innerHTML = note(eventsLow, "events") + items.slice(eventsLow, old).join("") +
      (old < count ? '<div class="ss-new">' + items.slice(old, count).join("") + "</div>" : "");
    data.slots.forEach(function (name, i) { slot(name).innerHTML = data.strings[row[9 + i]]; });
  }
  function stop() { clearInterval(timer); timer = null; play.textContent = words.play; }
  function step(by) {
    var k = Math.min(Math.max(Number(slider.value) + by, 0), Number(slider.max));
    slider.value = k; draw(); return k;
  }
  slider.addEventListener("input", draw);
  root.querySelector(".ss-prev").addEventListener("click", function () { stop(); step(-1); });
  root.querySelector(".ss-next").addEventListener("click", function () { stop(); step(1); });
  var speed = root.querySelector(".ss-speed");
  function start() {  // a tick every `ms` milliseconds, `by` steps a tick (the speed chosen)
    var pace = speed.value.split(","), ms = Number(pace[0]), by = Number(pace[1]);
    timer = setInterval(function () { if (step(by) >= Number(slider.max)) { stop(); } }, ms);
  }
  play.addEventListener("click", function () {
    if (timer) { stop(); return; }
    if (Number(slider.value) >= Number(slider.max)) { slider.value = 0; }
    play.textContent = words.pause;
    start();
  });
  speed.addEventListener("change", function () { if (timer) { clearInterval(timer); start(); } });
  // Shift+arrow: %(jump)d steps at a time (the arrows alone move one; Home and End the ends).
  slider.addEventListener("keydown", function (event) {
    var by = {ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1}[event.key];
    if (!event.shiftKey || !by) { return; }
    event.preventDefault(); stop(); step(by * %(jump)d);
  });
  if (select) {
    select.addEventListener("change", function () {
      // Keep the same place in the stream: the first step that has received as many
      // bytes, or the end of the stream if it was shown (as the widget does).
      var atEnd = Number(slider.value) >= Number(slider.max), frames = plan().frames, k = 0;
      while (k < frames.length - 1 && (atEnd || frames[k][3] < received)) { k++; }
      slider.max = frames.length - 1; slider.value = k; draw();
    });
  }
  draw();
})();
