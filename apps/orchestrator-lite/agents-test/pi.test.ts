import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAll } from "@venom/testkit";
import { binOf, nodeRelease } from "@venom/testkit/npm-cache";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { KEY, type Lane, startLane, workspaceFile } from "./lane.js";

afterAll(cleanupAll);

/** Pinned: what this lane proves is these versions. */
const PI = "@mariozechner/pi-coding-agent@0.73.1";
/** pi's ACP adapter drives pi's successor, which needs Node >= 22.19: a Node 24 from the npm registry runs both. */
const PI_ACP = "pi-acp@0.0.34";
const PI_NEXT = "@earendil-works/pi-coding-agent@1.6.0";
const NODE = "24.22.3";

/** The model's turns: a file written, a command run (recording its environment), a last word. */
const WRITE_AND_RUN = [
  { tool: "write", input: { path: "hello.txt", content: "written by pi\n" } },
  { tool: "bash", input: { command: "env > agent-env.txt" } },
  { text: "wrote hello.txt" },
];

/** pi's own models.json in its private directory routes its built-in Anthropic provider to the endpoint. */
function pointAtProvider(lane: Lane): void {
  const state = join(lane.stack.home, "agents", "pi", "state");
  mkdirSync(state, { recursive: true });
  writeFileSync(join(state, "models.json"), JSON.stringify({ providers: { anthropic: { baseUrl: lane.provider.url } } }));
  expect(lane.orch(["agents", "login", "pi", "--api-key"], `${KEY}\n`).code).toBe(0);
}

describe("pi through venom-orch, against a scripted model endpoint", () => {
  let lane: Lane | undefined;
  afterEach(async () => lane?.close());

  it("the CLI: signed in with agents login --api-key, writes a file and runs a command in the workspace, privately", async () => {
    lane = await startLane({ pi: join(binOf(PI), "pi") }, `[agents.pi]\ntransport = "cli"\n[agents.pi.env]\nPI_OFFLINE = "1"\n`);
    pointAtProvider(lane);
    lane.provider.script(...WRITE_AND_RUN);
    const screen = await lane.run("pi", "write hello.txt", { answers: ["y"] });
    expect(screen).toMatch(/asks nothing: pi has no approvals of its own/);
    expect(screen).toMatch(/RUN-EXIT=0/);
    expect(workspaceFile(lane, "hello.txt")).toBe("written by pi\n");
    // With --no-session pi keeps nothing of its own: its directory holds what the login and the user put there.
    lane.expectKeptPrivate("pi", { stateVar: "PI_CODING_AGENT_DIR", keyHeader: ["x-api-key", KEY], files: ["auth.json"] });
  });

  it("over ACP (pi-acp, on Node 24): writes the file asking nothing, as the launch question said, privately", async () => {
    const executables = { pi: join(binOf(PI_NEXT), "pi"), "pi-acp": join(binOf(PI_ACP), "pi-acp") };
    lane = await startLane(executables, `[agents.pi.env]\nPI_OFFLINE = "1"\n`, { nodeFirst: nodeRelease(NODE) });
    pointAtProvider(lane);
    lane.provider.script(...WRITE_AND_RUN);
    const screen = await lane.run("pi", "write hello.txt", { answers: ["y"] });
    expect(screen).toMatch(/RUN-EXIT=0/);
    expect(screen).toMatch(/launch pi over ACP/);
    expect(workspaceFile(lane, "hello.txt")).toBe("written by pi\n");
    lane.expectKeptPrivate("pi", { stateVar: "PI_CODING_AGENT_DIR", keyHeader: ["x-api-key", KEY], files: ["sessions"] });
  });
});
