// The chat page's stream reader: the course's pipeline, a second time, in JavaScript.
//
//   bytes  --TextDecoder-->  text  --LineSplitter-->  lines  --SSEParser-->  SSE events
//          --JSON.parse-->  Messages API events  --Answer-->  the message so far, shown
//
// Each stage is the one the notebooks built in Python: lines (notebook 02), SSE
// events (notebook 01), the Messages API events and the message (notebook 03),
// and the tool-call verdict (notebook 04, streaming_lib/tool_calls.py).
//
// Why fetch and not EventSource: EventSource only makes GET requests, with no
// body and no headers of ours, so it cannot post a prompt. fetch can, and its
// response body is a ReadableStream of bytes that we read chunk by chunk.
"use strict";

// ---- 1. Lines (notebook 02) ------------------------------------------------
// A line ends at CRLF, at a lone CR or at a lone LF (WHATWG HTML, 9.2.6).
// The text comes in pieces cut anywhere, so two things carry over between pieces:
// - `buffer`: the start of a line whose end has not arrived yet;
// - `endedOnCR`: the last piece ended on a CR. That CR ended a line, but if the
//   next piece starts with an LF, the two are one CRLF: that LF ends nothing.
class LineSplitter {
  constructor() {
    this.buffer = "";
    this.endedOnCR = false;
  }

  // Feed a piece of text; get back the lines it completed (without their ends).
  feed(text) {
    if (text === "") return [];
    if (this.endedOnCR && text[0] === "\n") text = text.slice(1);
    this.endedOnCR = false;
    const lines = [];
    let start = 0; // where the current line starts in `text`
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (char !== "\r" && char !== "\n") continue;
      lines.push(this.buffer + text.slice(start, i));
      this.buffer = "";
      if (char === "\r") {
        if (i + 1 === text.length) this.endedOnCR = true; // an LF may come in the next piece
        else if (text[i + 1] === "\n") i++; // CRLF: one line end
      }
      start = i + 1;
    }
    this.buffer += text.slice(start); // kept short: only the unfinished line
    return lines;
  }
}

// ---- 2. SSE events (notebook 01) -------------------------------------------
// Fields are gathered line by line; a blank line dispatches the event (WHATWG
// HTML, 9.2.6 "Interpreting an event stream").
class SSEParser {
  constructor() {
    this.eventType = ""; // from `event:` lines; empty means "message"
    this.dataLines = []; // from `data:` lines, joined with LF at dispatch
    this.lastEventId = ""; // from `id:`; kept from one event to the next
  }

  // Feed one line; get back an event {type, data, lastEventId} or null.
  feedLine(line) {
    if (line === "") return this.dispatch();
    if (line[0] === ":") return null; // a comment (some servers send them to keep the line alive)
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1); // one space after the colon is not part of the value
    if (field === "event") this.eventType = value;
    else if (field === "data") this.dataLines.push(value);
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    // `retry` and unknown fields are ignored: this reader never reconnects.
    return null;
  }

  dispatch() {
    const event = { type: this.eventType || "message", data: this.dataLines.join("\n"), lastEventId: this.lastEventId };
    const empty = this.dataLines.length === 0; // no data: nothing is dispatched
    this.eventType = "";
    this.dataLines = [];
    return empty ? null : event;
  }
}

// The event names of the Messages API ("Streaming Messages"): only these are read.
const API_EVENT_NAMES = new Set([
  "message_start", "message_delta", "message_stop",
  "content_block_start", "content_block_delta", "content_block_stop", "ping", "error",
]);

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
// A value in an error message as the library's (Python's repr) shows it: 'text', 3, null.
const shown = (value) => (typeof value === "string" ? `'${value}'` : JSON.stringify(value));

// ---- 3. The message so far (notebook 03's accumulator) ---------------------
// Out of order or malformed events throw, with the library's sentences
// (streaming_lib/accumulator.py); the reader below turns that into an error shown.
class Answer {
  constructor() {
    this.message = null; // from message_start; usage grows as events arrive
    // Block index -> block. A Map, not the message's `content` array: an index is
    // whatever the stream says, and `content["__proto__"] = block` would replace the
    // array's prototype. Only the next index (0, 1, 2...) is accepted anyway.
    this.blocks = new Map();
    this.jsonText = new Map(); // block index -> the partial JSON of a tool's input so far
    this.stopped = new Set(); // indices of blocks whose content_block_stop arrived
    this.inputErrors = new Map(); // block index -> why its input is not a JSON object
    this.complete = false; // message_stop arrived
    this.error = null; // the `error` of an `event: error` (after HTTP 200)
  }

  apply(event) {
    if (!isObject(event) || typeof event.type !== "string") throw new Error(say("the event is not an object with a 'type'"));
    const type = event.type;
    // ping and error may come at any point, even first.
    if (this.message === null && !["message_start", "ping", "error"].includes(type) && API_EVENT_NAMES.has(type)) {
      throw new Error(say("{kind} before message_start", { kind: type }));
    }
    if (type === "message_start") {
      if (this.message !== null) throw new Error(say("a second message_start"));
      if (!isObject(event.message) || !Array.isArray(event.message.content)) {
        throw new Error(say("message_start needs a 'message' object whose 'content' is a list"));
      }
      this.message = event.message;
      event.message.content.forEach((block, index) => this.blocks.set(index, block));
    } else if (type === "content_block_start") {
      if (event.index !== this.blocks.size) {
        throw new Error(say("content_block_start for index {index!r}, expected {expected}", { index: event.index, expected: this.blocks.size }));
      }
      this.blocks.set(event.index, event.content_block);
      // Tool calls, the client's and the API's own: their input streams as input_json_delta.
      if (["tool_use", "server_tool_use", "mcp_tool_use"].includes(event.content_block.type)) this.jsonText.set(event.index, "");
    } else if (type === "content_block_delta") {
      const block = this.block(event.index, type);
      const delta = event.delta;
      if (delta.type === "text_delta") block.text += delta.text; // UTF-16 strings: split surrogate halves join here
      else if (delta.type === "input_json_delta") this.jsonText.set(event.index, this.jsonText.get(event.index) + delta.partial_json);
      else if (delta.type === "thinking_delta") block.thinking = (block.thinking || "") + delta.thinking;
      // Other delta types are ignored: the API may add new ones.
    } else if (type === "content_block_stop") {
      this.block(event.index, type);
      this.stopped.add(event.index);
      if (this.jsonText.has(event.index)) this.parseInput(event.index);
    } else if (type === "message_delta") {
      // Only the fields a message_delta may change: never the message's id, role or content.
      for (const key of ["stop_reason", "stop_sequence", "stop_details"]) {
        if (Object.hasOwn(event.delta, key)) this.message[key] = event.delta[key];
      }
      // The counts so far, not increments; a count sent as null keeps the one before.
      for (const [key, value] of Object.entries(event.usage || {})) {
        if (value !== null) this.message.usage[key] = value;
      }
    } else if (type === "message_stop") {
      this.complete = true;
    } else if (type === "error") {
      this.error = event.error;
    }
    // `ping` and unknown event types change nothing.
  }

  // The block at `index`, which must have started.
  block(index, type) {
    const block = this.blocks.get(index);
    if (block === undefined) throw new Error(say("{kind} for block {index!r}, which never started", { kind: type, index }));
    return block;
  }

  // The one strict parse of a tool's input, at its stop. No fragment at all: it stays `{}`.
  parseInput(index) {
    const text = this.jsonText.get(index);
    if (text === "") return;
    let value;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.inputErrors.set(index, say("is not valid JSON: {error}", { error: error.message }));
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.inputErrors.set(index, say("is a JSON {kind}, not an object", { kind: Array.isArray(value) ? "array" : value === null ? "null" : typeof value }));
      return;
    }
    this.blocks.get(index).input = value;
  }

  text() {
    if (this.message === null) return "";
    return [...this.blocks.values()].filter((block) => block && block.type === "text").map((block) => block.text).join("\n\n");
  }
}

// ---- 4. May this tool call run? (streaming_lib/tool_calls.py, same rules, same sentences) ----
const NOT_RUNNABLE_BECAUSE = {
  end_turn: "the model finished its turn without asking for a tool to run",
  max_tokens: "the output was cut off at max_tokens, so the call may be incomplete",
  model_context_window_exceeded: "the context window filled up and the output was cut off, so the call may be incomplete",
  stop_sequence: "a stop sequence ended the output; only tool_use asks for a tool to run",
  pause_turn: "the API paused its own server-tool loop; send the turn back to let it go on",
  refusal: "the model refused; run nothing, and withdraw the text already shown",
};

// An allow-list: a call runs only when every rule holds; anything not named is a "no".
function toolCallVerdict(answer, index) {
  const no = (reason) => ({ runnable: false, reason });
  const block = answer.blocks.get(index);
  const kind = block.type;
  if (kind === "server_tool_use") return no(say("block {index} is {what} ({kind})", { index, what: say("a call the API runs itself"), kind }));
  if (kind === "mcp_tool_use") return no(say("block {index} is {what} ({kind})", { index, what: say("a call the API makes to the MCP server itself"), kind }));
  if (kind !== "tool_use") return no(say("block {index} is not a tool call ({kind})", { index, kind }));
  const reason = answer.message.stop_reason;
  if (answer.complete && reason !== "tool_use") {
    if (reason === null || reason === undefined) return no(say("the message ended with no stop_reason"));
    if (Object.hasOwn(NOT_RUNNABLE_BECAUSE, reason)) return no(say("stop_reason is {reason}: {because}", { reason, because: say(NOT_RUNNABLE_BECAUSE[reason]) }));
    return no(say("stop_reason is {reason!r}, which this client does not know; only tool_use asks for a tool to run", { reason }));
  }
  if (!answer.stopped.has(index)) return no(say("block {index} has no content_block_stop yet: its input may still grow", { index }));
  if (answer.inputErrors.has(index)) return no(say("block {index}'s input {problem}", { index, problem: answer.inputErrors.get(index) }));
  const input = block.input;
  if (input === null || typeof input !== "object" || Array.isArray(input)) return no(say("block {index}'s input is not a JSON object", { index }));
  if (!answer.complete) return no(say("the message has no message_stop yet: the stop_reason that allows a run comes last"));
  return { runnable: true, reason: say("block {index} is a complete tool_use call, and the message stopped for tool_use", { index }) };
}

// ---- 5. Showing it ---------------------------------------------------------
const $ = (id) => document.getElementById(id);

// Every sentence the page shows is an English template, said in the page's language:
// the app puts the table English -> that language in the page (chat/words.py).
const WORDS = JSON.parse(document.getElementById("words").textContent);
// `english` in the page's language, its {fields} filled in ({name!r}: quoted, as Python's repr).
function say(english, fields = {}) {
  const template = Object.hasOwn(WORDS, english) ? WORDS[english] : english;
  return template.replace(/\{(\w+)(!r)?\}/g, (all, name, quoted) => (quoted ? shown(fields[name]) : String(fields[name])));
}

// "1 output token", "58 output tokens": `one` for 1, else `many` with its {count}.
const count = (number, one, many) => (number === 1 ? say(one) : say(many, { count: number }));

// `ended`: null while the stream is still read; once it is over, why it ended before
// message_stop ("the connection was cut", ...), or "" when message_stop came. While the
// stream is read, a call that may not run yet is "pending": only the end makes a "no" final.
function render(answer, ended = null) {
  if (answer.message === null) return;
  $("answer").textContent = answer.text();
  for (const [index, text] of answer.jsonText) {
    let box = document.querySelector(`.tool[data-index="${index}"]`);
    if (box === null) {
      box = document.createElement("div");
      box.className = "tool";
      box.dataset.index = index;
      box.innerHTML = "<h2></h2><pre class=\"tool-input\"></pre><p class=\"verdict\"></p>";
      const block = answer.blocks.get(index);
      box.querySelector("h2").textContent = `${block.name} (${block.type})`;
      $("tools").append(box);
    }
    box.querySelector(".tool-input").textContent = text; // the raw JSON so far: display only, never run
    // Ended before this block's content_block_stop: what arrived is all there is.
    if (ended && !answer.stopped.has(index) && !box.classList.contains("cut")) {
      box.classList.add("cut");
      const note = document.createElement("p");
      note.className = "cut-note";
      note.textContent = text === ""
        ? say("✂ {ended} before this input was complete: none of it arrived.", { ended })
        : say("✂ {ended} before this input was complete: the {characters} above are all that arrived.",
          { ended, characters: count(text.length, "1 character", "{count} characters") });
      box.querySelector(".tool-input").after(note);
    }
    let verdict = toolCallVerdict(answer, index);
    if (ended && !verdict.runnable && !(answer.complete && answer.stopped.has(index))) {
      // It ended (Stop, a cut, an error) before the call was complete: nothing more will come.
      verdict = { runnable: false, reason: say("{ended} before this call was complete: it may not run", { ended }) };
    }
    const line = box.querySelector(".verdict");
    const state = verdict.runnable ? "runnable" : ended === null ? "pending" : "not-runnable";
    line.className = "verdict " + state;
    const fields = { reason: verdict.reason };
    line.textContent = verdict.runnable ? say("runnable: {reason}", fields)
      : ended === null ? say("pending: {reason}", fields) : say("not runnable: {reason}", fields);
  }
  const usage = answer.message.usage;
  const tokens = say("{input}, {output}", {
    input: count(usage.input_tokens, "1 input token", "{count} input tokens"),
    output: count(usage.output_tokens, "1 output token", "{count} output tokens"),
  });
  $("usage").textContent = answer.complete ? say("usage: {tokens}", { tokens }) : say("usage so far: {tokens}", { tokens });
}

function showStatus(kind, text) {
  $("status").className = kind;
  $("status").textContent = text;
}

// ---- 6. Sending a prompt, reading the answer -------------------------------
let controller = null; // aborts the fetch in flight (the Stop button)

async function send(prompt) {
  controller = new AbortController();
  const answer = new Answer();
  $("answer").textContent = "";
  $("tools").textContent = "";
  $("usage").textContent = "";
  $("yours").hidden = true;
  showStatus("streaming", say("streaming…"));
  // The page's own query (?error_after=8, ?drop_at=1500) goes to the app, which
  // passes the replay server's faults on to it, and nothing else.
  const response = await fetch("/chat" + location.search, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prompt }),
    signal: controller.signal,
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    const message = body.error ? `${body.error.type}: ${body.error.message}` : response.statusText;
    showStatus("error", say("error: HTTP {status}: {message}", { status: response.status, message }));
    return;
  }
  // In notebook 07 the app also reads the answer with the learner's own client: its
  // report, once the stream is over, is at /yours/N (section 7).
  const reading = response.headers.get("x-your-client");
  try {
    await read(response, answer);
  } finally {
    if (reading !== null) await showYours(reading);
  }
}

async function read(response, answer) {
  const reader = response.body.getReader();
  // One decoder for the whole stream, with {stream: true}: a character whose
  // bytes are split between two chunks is held until its last byte arrives.
  // (It also drops a byte order mark at the start, as the SSE rules ask.)
  const decoder = new TextDecoder("utf-8");
  const lines = new LineSplitter();
  const sse = new SSEParser();
  let number = 0; // events dispatched, for error messages
  const take = (text) => {
    for (const line of lines.feed(text)) {
      const dispatched = sse.feedLine(line);
      if (dispatched === null) continue;
      // The event's name decides, as in streaming_lib/events.py: a name the API does not
      // send (a gateway's `keepalive`, `done`) is skipped whatever its data; an unnamed one
      // is named by its data's `type`; `error` wins over data that is not JSON.
      const named = dispatched.type !== "message";
      if (named && !API_EVENT_NAMES.has(dispatched.type)) continue;
      let event;
      try {
        event = JSON.parse(dispatched.data);
      } catch (error) {
        if (!named) continue; // unnamed, and no JSON: names no event
        number++;
        if (dispatched.type === "error") {
          answer.error = { type: null, message: dispatched.data };
          return;
        }
        const why = say("data is not JSON: {error}", { error: error.message });
        answer.error = { type: "bad_event", message: say("event {number} ({name}): {why}", { number, name: dispatched.type, why }) };
        return;
      }
      if (!named && !(isObject(event) && API_EVENT_NAMES.has(event.type))) continue;
      number++;
      // A name wins over its data for ping and error (as in the SDK); any other name
      // must agree with its data's `type` when that is an event name too.
      const name = named ? dispatched.type : event.type;
      if (name === "ping") event = { type: "ping" };
      else if (name === "error") {
        event = isObject(event) && isObject(event.error) ? { ...event, type: "error" } : { type: "error", error: { type: null, message: dispatched.data } };
      } else if (isObject(event) && API_EVENT_NAMES.has(event.type) && event.type !== name) {
        const why = say("named {name!r} by its event line but {kind!r} by its data's type", { name, kind: event.type });
        answer.error = { type: "bad_event", message: say("event {number} ({name}): {why}", { number, name, why }) };
        return;
      }
      try {
        answer.apply(event);
      } catch (error) {
        // An event out of order (a delta before its block's start, say): the stream is not one we can read on.
        answer.error = { type: "bad_event", message: say("event {number}: {what}", { number, what: error.message }) };
        return;
      }
      if (answer.complete || answer.error) return; // nothing after message_stop or an error is read
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        take(decoder.decode()); // the end: a character left unfinished becomes U+FFFD
        break;
      }
      take(decoder.decode(value, { stream: true }));
      render(answer);
      if (answer.complete || answer.error) {
        reader.cancel(); // done: close the connection, even if it was held open
        break;
      }
    }
  } catch (error) {
    // A cut (or Stop) errors the stream: chunks the browser had received but we
    // had not read yet are dropped with it. What is shown is what we read.
    if (error.name === "AbortError") {
      render(answer, say("you stopped the answer"));
      showStatus("incomplete", say("stopped: you stopped the answer; what arrived is kept above"));
    } else {
      render(answer, say("the connection was cut"));
      showStatus("incomplete", say("incomplete: the connection was cut before message_stop ({why}); the answer above is partial", { why: error.message }));
    }
    return;
  }
  if (answer.error) {
    render(answer, say("an error ended the stream"));
    showStatus("error", say("error: {type}: {message}; the answer above is partial", answer.error));
  } else if (!answer.complete) {
    render(answer, say("the stream ended"));
    showStatus("incomplete", say("incomplete: the stream ended before message_stop; the answer above is partial"));
  } else if (answer.message.stop_reason === "refusal") {
    // The model declined after it had started: what was shown is taken back (notebook 06).
    render(answer, "");
    $("answer").textContent = "";
    showStatus("error", say("refused: the model declined to go on; the text shown while it streamed is withdrawn"));
  } else {
    render(answer, "");
    showStatus("done", say("done: stop_reason {reason}", { reason: answer.message.stop_reason }));
  }
}

// ---- 7. Your client, beside the page (notebook 07) -------------------------
// When the app runs on the learner's code, it hands each relayed piece to their client
// (my_client/) too, and reports once the stream is over: whose each stage was, whether
// their message is the library's for the same bytes, and their verdict on each tool call,
// which then replaces the page's own.
async function showYours(number) {
  const report = await fetch(`/yours/${number}`)
    .then((response) => (response.ok ? response.json() : null))
    .catch(() => null);
  if (report === null) return;
  const whose = report.stages.verdict === "yours"
    ? say("your may_run (my_client/verdict.py)")
    : say("the library's verdict (yours does not pass its checks yet)");
  for (const [index, runnable] of Object.entries(report.verdicts)) {
    const line = document.querySelector(`.tool[data-index="${index}"] .verdict`);
    if (line === null) continue;
    line.className = "verdict " + (runnable ? "runnable" : "not-runnable");
    line.textContent = runnable ? say("runnable, says {whose}", { whose }) : say("not runnable, says {whose}", { whose });
  }
  const stages = Object.entries(report.stages);
  const mine = stages.filter(([, whose]) => whose === "yours").map(([name]) => name);
  const library = stages.filter(([, whose]) => whose !== "yours").map(([name]) => name);
  $("yours").className = report.message.matches ? "matches" : "differs";
  const stagesNow = { said: report.message.said, stages: mine.join(", ") || say("none yet"), library: library.join(", ") };
  $("yours").textContent = library.length
    ? say("{said}. Your stages: {stages}; the library's, for now: {library}", stagesNow)
    : say("{said}. Your stages: {stages}", stagesNow);
  $("yours").hidden = false;
}

// What answers: a recorded stream, replayed whatever the prompt, or a model (app.py's /about).
async function showSource() {
  const about = await fetch("/about").then((response) => response.json()).catch(() => null);
  if (about === null) return;
  $("source").textContent = about.replaying === null
    ? say("Answers come from the Messages API ({model}).", { model: about.model })
    : say("Offline replay: whatever you ask, the answer is the same recorded stream, {recording}, replayed by the local replay server; no model reads your prompt. Start the page with ANTHROPIC_API_KEY set to ask a real model.", { recording: about.replaying });
  $("source").hidden = false;
}
showSource();

$("ask").addEventListener("submit", async (submitted) => {
  submitted.preventDefault();
  $("send").disabled = true;
  $("stop").disabled = false;
  try {
    await send($("prompt").value);
  } catch (error) {
    // The fetch itself failed (or was stopped before any answer).
    if (error.name === "AbortError") showStatus("incomplete", say("stopped: you stopped the answer before it began"));
    else showStatus("error", say("error: {message}", { message: error.message }));
  } finally {
    $("send").disabled = false;
    $("stop").disabled = true;
    controller = null;
  }
});

// Stop: abort the fetch. The browser closes the connection, the app sees it and
// closes its own request upstream at once; what arrived stays on the page.
$("stop").addEventListener("click", () => {
  if (controller !== null) controller.abort();
});
