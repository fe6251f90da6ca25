import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cli } from "@venom/testkit";
import { describe, expect, it } from "vitest";
import { daemonForFile, needsTmux } from "./started.js";
import { poll, Tmux } from "./tmux.js";

/**
 * `send` with tmux key names, to a program that records the bytes it reads,
 * in venom-mux and in real tmux: the same keys give the same bytes, in every
 * key mode the program can set.
 */

const KEY_BYTES = fileURLToPath(new URL("./fixtures/key-bytes.mjs", import.meta.url));
const KEYS = [
  ...["Up", "Down", "Left", "Right", "IC", "DC", "PPage", "NPage", "PageUp", "PageDown", "F1", "F4", "F5", "F12"],
  ...["BTab", "Tab", "Enter", "Escape", "BSpace", "Space", "C-a", "C-Space", "C-c", "^d", "M-x", "M-Enter", "C-M-a"],
  ...["C-Up", "S-Left", "M-Up", "C-M-Right", "S-F5", "C-F1", "M-DC", "KP5", "KPEnter", "KP/", "text", "C-["],
];

const daemon = daemonForFile();

function recorded(file: string): Promise<string> {
  return poll(
    () => {
      try {
        return JSON.parse(readFileSync(file, "utf8")) as string;
      } catch {
        return undefined;
      }
    },
    () => `nothing recorded in ${file}`,
    20_000,
  );
}

/** The bytes venom-mux sends for `keys` to a program that set `modes`. */
async function venomBytes(name: string, modes: string, keys: string[]): Promise<string> {
  const file = join(daemon().workspace, `${name}.json`);
  expect(cli(daemon(), ["new", "-d", "-n", name, "--", process.execPath, KEY_BYTES, file, modes]).code).toBe(0);
  await expect.poll(() => cli(daemon(), ["capture", "-t", name]).stdout, { timeout: 20_000 }).toMatch(/^ready$/m);
  const sent = cli(daemon(), ["send", "-t", name, ...keys]);
  expect(sent.stderr).toBe("");
  cli(daemon(), ["send", "-t", name, "-l", "!"]);
  return recorded(file);
}

/** The bytes tmux sends for the same keys. */
async function tmuxBytes(name: string, modes: string, keys: string[]): Promise<string> {
  const file = join(daemon().workspace, `${name}-tmux.json`);
  const tmux = Tmux.start({ env: process.env, command: `${process.execPath} ${KEY_BYTES} ${file} ${modes}` });
  try {
    await tmux.waitFor(/^ready$/m, 20_000);
    tmux.keys(...keys);
    tmux.type("!");
    return await recorded(file);
  } finally {
    tmux.kill();
  }
}

describe("send encodes tmux key names as tmux does", () => {
  needsTmux();
  for (const modes of ["normal", "cursor", "keypad", "cursor,keypad"]) {
    it(`with the program in ${modes} mode`, async () => {
      const name = `keys-${modes.replace(",", "-")}`;
      const [ours, theirs] = await Promise.all([venomBytes(name, modes, KEYS), tmuxBytes(name, modes, KEYS)]);
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
    });
  }
});

describe("send, beyond tmux's send-keys", () => {
  needsTmux();
  it("sends Home and End as the pane's TERM (xterm-256color) says, following application cursor mode", async () => {
    expect(await venomBytes("home-normal", "normal", ["Home", "End"])).toBe("\x1b[H\x1b[F");
    expect(await venomBytes("home-cursor", "cursor", ["Home", "End"])).toBe("\x1bOH\x1bOF");
    // tmux 3.3a sends its own \e[1~ and \e[4~ in every mode, which xterm-256color's terminfo does not list.
    expect(await tmuxBytes("home-tmux", "cursor", ["Home", "End"])).toBe("\x1b[1~\x1b[4~");
  });

  it("send -p pastes as tmux paste-buffer -p does: LF as CR, bracketed when the program enabled it", async () => {
    const text = "first line\nsecond line";
    const file = join(daemon().workspace, "paste-tmux.json");
    const tmux = Tmux.start({ env: process.env, command: `${process.execPath} ${KEY_BYTES} ${file} paste` });
    try {
      await tmux.waitFor(/^ready$/m, 20_000);
      tmux.run("set-buffer", text);
      tmux.run("paste-buffer", "-p", "-t", "main");
      tmux.type("!");
      const theirs = await recorded(file);
      expect(theirs).toBe("\x1b[200~first line\rsecond line\x1b[201~");
      expect(await venomBytes("paste", "paste", ["-p", text])).toBe(theirs);
    } finally {
      tmux.kill();
    }
    // Without bracketed paste the text is typed; a paste can never carry its own end marker.
    expect(await venomBytes("paste-plain", "normal", ["-p", text])).toBe("first line\rsecond line");
    expect(await venomBytes("paste-escape", "paste", ["-p", "a\x1b[201~rm -rf ~\n"])).toBe("\x1b[200~arm -rf ~\r\x1b[201~");
  });

  it("refuses a key name it does not know, naming it, unless -l types it", async () => {
    cli(daemon(), ["new", "-d", "-n", "unknown", "--", "cat"]);
    for (const bad of ["C-Foo", "F13", "M-Nope"]) {
      const result = cli(daemon(), ["send", "-t", "unknown", bad]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`unknown key name: "${bad}"`);
    }
    expect(await venomBytes("literal", "normal", ["-l", "C-Foo", "F13"])).toBe("C-FooF13");
  });
});
