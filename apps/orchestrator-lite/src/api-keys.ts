import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { privateDirBeneath, readSmallFile, writeFileAtomic } from "@venom/runtime";
import type { Adapter } from "./adapters.js";

// `venom-orch agents login NAME --api-key` (docs/venom-orch.md, "Using real agents"): the key goes where each agent
// documents it, inside its private state directory (its state variable points there on every run), 0600, written
// whole or not at all. Files in that directory are the agent's: read without following a link, replaced (never
// written through) so a link planted there cannot send a key elsewhere. The key is never an argument or logged.

/** Where one agent's key lives and how its own configuration is pointed at it. */
export interface KeyWiring {
  /** Stores `key` and wires it in; `state` is the agent's state directory, `env` its private environment. */
  wire(ctx: WiringContext, key: string): Promise<void>;
  /** Undoes `wire` and the agent's own sign-in: the files that hold a credential, Venom's edits of its settings. */
  unwire(ctx: WiringContext): void;
  /** Whether a key or the agent's own sign-in is there (never what it is). */
  signedIn(state: string): boolean;
}

export interface WiringContext {
  state: string;
  env: NodeJS.ProcessEnv;
  /** The agent's program, for a wiring that runs the agent's own login. */
  argv0: string[] | null;
  /** pi's provider name for the key (its auth.json is keyed by provider). */
  provider: string;
}

/** A JSON settings file of the agent's, as an object; {} when missing or not an object (it is rewritten whole). */
function readJson(path: string): Record<string, unknown> {
  const bytes = readSmallFile(path, 1024 * 1024);
  if (!bytes) return {};
  try {
    const value = JSON.parse(bytes.toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    throw new Error(`${path} is not valid JSON: fix or remove it, then sign in again`);
  }
}

function writePrivate(state: string, relative: string, text: string): void {
  if (dirname(relative) !== ".") privateDirBeneath(state, dirname(relative));
  writeFileAtomic(join(state, relative), text);
}

const exists = (path: string) => readSmallFile(path, 1024 * 1024) !== null;

/** A path as one word of a POSIX shell command line. */
const shellWord = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Claude Code: an `apiKeyHelper` in CLAUDE_CONFIG_DIR's settings.json that prints the stored key (its documented hook). */
const claude: KeyWiring = {
  async wire({ state }, key) {
    writePrivate(state, "venom-api-key", `${key}\n`);
    const settings = readJson(join(state, "settings.json"));
    settings.apiKeyHelper = `cat ${shellWord(join(state, "venom-api-key"))}`;
    writePrivate(state, "settings.json", `${JSON.stringify(settings, null, 2)}\n`);
  },
  unwire({ state }) {
    const settings = readJson(join(state, "settings.json"));
    if (settings.apiKeyHelper === `cat ${shellWord(join(state, "venom-api-key"))}`) {
      delete settings.apiKeyHelper;
      writePrivate(state, "settings.json", `${JSON.stringify(settings, null, 2)}\n`);
    }
    for (const file of ["venom-api-key", ".credentials.json"]) rmSync(join(state, file), { force: true });
  },
  signedIn: (state) => exists(join(state, "venom-api-key")) || exists(join(state, ".credentials.json")),
};

/** Codex: its own `codex login --with-api-key`, the key on its stdin, under the private CODEX_HOME (auth.json there). */
const codex: KeyWiring = {
  async wire({ env, argv0 }, key) {
    if (!argv0) throw new Error("codex is not installed: its own login stores the key (npm install -g @openai/codex)");
    const [file, ...args] = [...argv0, "login", "--with-api-key"];
    const child = spawn(file as string, args, { env, cwd: env.HOME, stdio: ["pipe", "ignore", "pipe"] });
    let said = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      said = (said + chunk).slice(-512);
    });
    child.stdin.end(`${key}\n`);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    // codex's own words, not the key: it reads the key from stdin and never echoes it.
    if (code !== 0) throw new Error(`codex login --with-api-key failed (exit ${code})${said.trim() ? `: ${said.trim()}` : ""}`);
  },
  unwire({ state }) {
    rmSync(join(state, "auth.json"), { force: true });
  },
  signedIn: (state) => exists(join(state, "auth.json")),
};

/** Gemini CLI: GEMINI_API_KEY in the .env of its home (GEMINI_CLI_HOME/.gemini/.env). */
const gemini: KeyWiring = {
  async wire({ state }, key) {
    writePrivate(state, ".gemini/.env", `${withoutKeyLine(join(state, ".gemini", ".env"))}GEMINI_API_KEY=${key}\n`);
  },
  unwire({ state }) {
    const rest = withoutKeyLine(join(state, ".gemini", ".env"));
    if (rest) writePrivate(state, ".gemini/.env", rest);
    else rmSync(join(state, ".gemini", ".env"), { force: true });
    rmSync(join(state, ".gemini", "oauth_creds.json"), { force: true });
  },
  signedIn: (state) =>
    /^GEMINI_API_KEY=/m.test(readSmallFile(join(state, ".gemini", ".env"), 65536)?.toString("utf8") ?? "") ||
    exists(join(state, ".gemini", "oauth_creds.json")),
};

/** The .env's lines but GEMINI_API_KEY's, each ending in a newline. */
function withoutKeyLine(path: string): string {
  const lines = (readSmallFile(path, 65536)?.toString("utf8") ?? "")
    .split("\n")
    .filter((line) => line && !line.startsWith("GEMINI_API_KEY="));
  return lines.map((line) => `${line}\n`).join("");
}

/** pi: an api_key entry for the provider in auth.json, in PI_CODING_AGENT_DIR. */
const pi: KeyWiring = {
  async wire({ state, provider }, key) {
    const auth = readJson(join(state, "auth.json"));
    auth[provider] = { type: "api_key", key };
    writePrivate(state, "auth.json", `${JSON.stringify(auth, null, 2)}\n`);
  },
  unwire({ state }) {
    rmSync(join(state, "auth.json"), { force: true });
  },
  signedIn: (state) => Object.keys(readJson(join(state, "auth.json"))).length > 0,
};

/** A key file in the state directory, for agents that document one (DeepSeek Harness) and agents the user added. */
function keyFileWiring(file: string): KeyWiring {
  return {
    async wire({ state }, key) {
      writePrivate(state, file, `${key}\n`);
    },
    unwire({ state }) {
      rmSync(join(state, file), { force: true });
    },
    signedIn: (state) => exists(join(state, file)),
  };
}

/** The built-ins whose key Venom can wire; grok documents no key file (its own `login` signs it in). */
const KEY_WIRINGS: Readonly<Record<string, KeyWiring>> = { claude, codex, gemini, pi, dsh: keyFileWiring("api-key") };

/** How an agent's key is wired in: a built-in's own way, a key file `api-key` for an agent the user added, else none. */
export function wiringOf(adapter: Adapter): KeyWiring | null {
  if (adapter.name in KEY_WIRINGS) return KEY_WIRINGS[adapter.name] as KeyWiring;
  return adapter.builtIn ? null : keyFileWiring("api-key");
}
