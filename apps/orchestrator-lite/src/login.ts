import { join } from "node:path";
import { MARKER_DEPTH, MARKER_PARENT } from "@venom/proto";
import { delegatedEnv, privateDir, type VenomHome, writeFileAtomic } from "@venom/runtime";
import type { Adapter } from "./adapters.js";

/**
 * The environment an agent signs in with: the same allow-listed, private-home
 * environment its runs get, without delegation markers (the owner signs in,
 * nothing is delegated).
 */
export function agentEnvironment(adapter: Adapter, declared: readonly string[], home: VenomHome): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = delegatedEnv({
    base: process.env,
    pass: adapter.envPass,
    own: adapter.env,
    home,
    agent: adapter.name,
    ...(adapter.stateVar ? { stateVar: adapter.stateVar } : {}),
    declaredVars: declared,
    parent: "login",
    parentDepth: 0,
    maxDepth: 1,
  });
  delete env[MARKER_PARENT];
  delete env[MARKER_DEPTH];
  return env;
}

/**
 * One line read without echo on a terminal (raw mode, backspace works, C-c
 * aborts), or the first line of stdin otherwise. The key never reaches argv,
 * the screen or a log.
 */
export function readSecretLine(prompt: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    return new Promise((resolve) => {
      let text = "";
      input.setEncoding("utf8");
      input.on("data", (chunk) => {
        text += chunk;
      });
      input.once("end", () => resolve((text.split(/\r?\n/)[0] ?? "").trim()));
    });
  }
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding("utf8");
  input.resume();
  return new Promise((resolve, reject) => {
    let key = "";
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.removeListener("data", onData);
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(key.trim());
    };
    const onData = (chunk: string) => {
      for (const c of chunk) {
        if (c === "\r" || c === "\n") return done();
        if (c === "\u0003") return done(new Error("cancelled; nothing was stored"));
        if (c === "\u007f" || c === "\b") key = key.slice(0, -1);
        else if (c >= " ") key += c;
      }
    };
    input.on("data", onData);
  });
}

/** Write the key into the agent's state directory: 0600 in a 0700 directory, atomically. */
export function storeKey(stateDir: string, file: string, key: string): string {
  privateDir(stateDir);
  const path = join(stateDir, file);
  writeFileAtomic(path, `${key}\n`);
  return path;
}
