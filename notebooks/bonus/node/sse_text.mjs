// sse_text.mjs: print the text of a Messages API stream, read from a file in small chunks.
//
//   node sse_text.mjs [FILE] [CHUNK_SIZE]    (default: the course fixture, 7 bytes a chunk)
//
// The course's stages in plain JavaScript (Node 18 or later, nothing to install):
// bytes -> text (TextDecoder) -> lines -> SSE events -> text deltas.
import { createReadStream } from "node:fs";

const file = process.argv[2] ?? new URL("../../../fixtures/fixture.sse", import.meta.url);
const chunkSize = Number(process.argv[3] ?? 7);

// 1. Bytes to text. With {stream: true} the decoder keeps the first bytes of a character
//    cut by a chunk boundary until the next chunk brings the rest (notebook 02).
//    Without it, each half would become U+FFFD.
const decoder = new TextDecoder("utf-8");

// 2. Text to lines. A line ends at LF, CRLF or CR. A CR ends its line at once, as
//    notebook 02 does: waiting for the next chunk would hold a whole event back when
//    the stream ends its lines with CR. If the next chunk then starts with an LF, that
//    LF is the rest of a CRLF cut in two, and ends no line.
let pending = ""; // text after the last line ending: a line not finished yet
let afterCR = false; // the last text ended with a CR

function* completeLines(text) {
  if (text === "") return; // nothing new (the decoder holds a cut character): afterCR stays
  const skip = afterCR && text.startsWith("\n");
  afterCR = text.endsWith("\r");
  pending += skip ? text.slice(1) : text;
  const parts = pending.split(/\r\n|\r|\n/);
  pending = parts.pop(); // the last part had no line ending yet
  yield* parts;
}

// 3. Lines to events (WHATWG HTML, "Interpreting an event stream"): fields until a blank line.
let eventType = ""; // the last `event:` field of this event
let data = []; // its `data:` lines, joined with LF at dispatch

function* dispatchOn(line) {
  if (line === "") {
    if (data.length > 0) yield { type: eventType || "message", data: data.join("\n") };
    eventType = "";
    data = [];
    return;
  }
  if (line.startsWith(":")) return; // a comment
  const colon = line.indexOf(":");
  const field = colon === -1 ? line : line.slice(0, colon);
  let value = colon === -1 ? "" : line.slice(colon + 1);
  if (value.startsWith(" ")) value = value.slice(1); // one space after the colon is not data
  if (field === "event") eventType = value;
  if (field === "data") data.push(value); // id and retry matter only to a reconnecting client
}

// 4. Events to text: print each text delta as it comes; the message is over at message_stop.
function handle(event) {
  if (event.type === "error") throw new Error(`error event: ${event.data}`);
  if (event.type !== "content_block_delta") return event.type === "message_stop";
  const delta = JSON.parse(event.data).delta;
  if (delta.type === "text_delta") process.stdout.write(delta.text);
  return false;
}

async function main() {
  for await (const chunk of createReadStream(file, { highWaterMark: chunkSize })) {
    for (const line of completeLines(decoder.decode(chunk, { stream: true }))) {
      for (const event of dispatchOn(line)) if (handle(event)) return;
    }
  }
  for (const line of completeLines(decoder.decode())) {
    for (const event of dispatchOn(line)) if (handle(event)) return;
  }
  throw new Error("the stream ended before message_stop");
}

main().then(
  () => process.stdout.write("\n"),
  (error) => {
    process.stdout.write("\n");
    console.error(error.message);
    process.exitCode = 1;
  },
);
