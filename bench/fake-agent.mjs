#!/usr/bin/env node
// A fake agent TUI for the workflow bench (bench/workflow.mjs), driven the same
// way in venom-mux and in tmux. Like an agent CLI it takes the terminal in raw
// mode with bracketed paste on, shows a prompt, takes a multi-line paste as a
// task, streams some output for it, then waits at its prompt again; a typed
// line `/exit CODE` ends it with that code. It reaches nothing but its terminal.

const STREAMED_LINES = 20;
const STREAM_EVERY_MS = 10;
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

const out = (text) => process.stdout.write(text);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function work(task) {
  const lines = task.split(/\r\n|\r|\n/).filter((line) => line.trim() !== "");
  out("\r\n");
  for (let i = 1; i <= STREAMED_LINES; i++) {
    out(`working: step ${i} of ${STREAMED_LINES}\r\n`);
    await sleep(STREAM_EVERY_MS);
  }
  out(`done: ${lines.length} lines received, last "${lines.at(-1) ?? ""}"\r\n`);
}

function typed(line) {
  out("\r\n");
  const exit = /^\/exit (\d+)$/.exec(line);
  if (exit) {
    out("\x1b[?2004l");
    process.exit(Number(exit[1]));
  }
  out(`unknown command: ${line}\r\n`);
}

let input = "";

/** The next whole paste or typed line in the input, taken out of it; null until one has arrived. */
function take() {
  const paste = input.indexOf(PASTE_START);
  const enter = input.indexOf("\r");
  if (paste === 0) {
    const end = input.indexOf(PASTE_END);
    if (end < 0) return null;
    const task = input.slice(PASTE_START.length, end);
    input = input.slice(end + PASTE_END.length);
    return { task };
  }
  if (enter >= 0 && (paste < 0 || enter < paste)) {
    const line = input.slice(0, enter);
    input = input.slice(enter + 1);
    return { line };
  }
  // Typed text without Enter before a paste is dropped, as a prompt that takes the paste would replace it.
  if (paste > 0) {
    input = input.slice(paste);
    return take();
  }
  return null;
}
let busy = Promise.resolve();
process.stdin.setRawMode(true);
process.stdin.on("data", (chunk) => {
  input += chunk.toString("utf8");
  // One thing at a time, in the order typed: a paste is a task, a typed line a command.
  busy = busy.then(async () => {
    for (let next = take(); next; next = take()) {
      if ("task" in next) await work(next.task);
      else typed(next.line);
      out("agent> ");
    }
  });
});
out("\x1b[?2004hfake agent: paste a task, or type /exit CODE\r\nagent> ");
