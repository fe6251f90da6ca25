import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CallCancellation,
  CallCancelled,
  CallDeadline,
  type Decorator,
  Dispatcher,
  type DispatchSession,
  defineTool,
  ErrorCode,
  type Grant,
  ProtocolError,
  Snapshot,
  ToolFailure,
} from "../src/index.js";

const CANARY = "canary-7f3a9c-SECRET";
const effects: string[] = [];

const echo = defineTool({
  name: "echo",
  description: "echo",
  input: z.strictObject({ text: z.string().max(100) }),
  capabilities: [],
  effect: "read-only",
  replay: "safe",
  summarize: (i) => `echo ${i.text}`,
  run: async (i) => ({ content: i.text }),
});
const touch = defineTool({
  name: "touch",
  description: "records a side effect",
  input: z.strictObject({ mark: z.string() }),
  capabilities: ["fs.write"],
  effect: "mutating",
  replay: "unsafe",
  summarize: (i) => `touch ${i.mark}`,
  run: async (i, call) => {
    if (i.mark === "slow") await new Promise((_, reject) => call.signal.addEventListener("abort", () => reject(call.signal.reason)));
    effects.push(i.mark);
    return { content: "done" };
  },
});
const leaky = defineTool({
  name: "leaky",
  description: "throws its secret",
  input: z.strictObject({ kind: z.enum(["error", "value", "failure"]) }),
  capabilities: [],
  effect: "read-only",
  replay: "safe",
  summarize: () => "leaky",
  run: async (i) => {
    if (i.kind === "error") throw new Error(`boom ${CANARY}`);
    if (i.kind === "failure") throw new ToolFailure("path escapes the workspace");
    throw CANARY;
  },
});
const big = defineTool({
  name: "big",
  description: "prints a lot",
  input: z.strictObject({}),
  capabilities: [],
  effect: "read-only",
  replay: "safe",
  summarize: () => "big",
  run: async () => ({ content: "x".repeat(10_000) }),
});

const snapshot = new Snapshot([echo, touch, leaky, big]);
const grant = (over: Partial<Grant> = {}): Grant => ({
  tools: snapshot.names as string[],
  policy: "on-risk",
  autoApprove: false,
  manage: true,
  ...over,
});
const asked: string[] = [];
const session = (over: Partial<DispatchSession<null>> = {}): DispatchSession<null> => ({
  grant: grant(),
  snapshot,
  gate: async (req) => {
    asked.push(`${req.label} ${req.tool}: ${req.summary} (${req.risk})`);
    return "approve";
  },
  label: "[test]",
  limits: { maxTimeoutSeconds: 5, maxOutputBytes: 1000 },
  context: null,
  ...over,
});
let n = 0;
const req = (name: string, args: unknown, cancellation = new CallCancellation(), timeoutSeconds?: number) => ({
  name,
  arguments: args,
  callId: `c${++n}`,
  cancellation,
  timeoutSeconds,
});

describe("the dispatcher", () => {
  const dispatcher = new Dispatcher<null>();

  it("refuses a tool name outside the snapshot", async () => {
    await expect(dispatcher.dispatch(session(), req("rm", {}))).rejects.toMatchObject({ code: ErrorCode.ToolNotGranted });
  });
  it("refuses a tool in the snapshot but outside the grant", async () => {
    const s = session({ grant: grant({ tools: ["echo"] }) });
    await expect(dispatcher.dispatch(s, req("touch", { mark: "a" }))).rejects.toBeInstanceOf(ProtocolError);
    expect(effects).not.toContain("a");
  });
  it("validates input and names the offending field", async () => {
    await expect(dispatcher.dispatch(session(), req("echo", { text: 5 }))).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      data: { path: ["arguments", "text"] },
    });
  });
  it("runs a read without asking under on-risk", async () => {
    asked.length = 0;
    expect(await dispatcher.dispatch(session(), req("echo", { text: "hi" }))).toEqual({ status: "ok", content: "hi" });
    expect(asked).toEqual([]);
  });
  it("asks for a side effect with the exact tool name and summary, per call", async () => {
    asked.length = 0;
    await dispatcher.dispatch(session(), req("touch", { mark: "b" }));
    await dispatcher.dispatch(session(), req("touch", { mark: "c" }));
    expect(asked).toEqual(["[test] touch: touch b (write)", "[test] touch: touch c (write)"]);
  });
  it("a denial is a denied result and the tool never runs", async () => {
    const s = session({ gate: async () => "deny" });
    const result = await dispatcher.dispatch(s, req("touch", { mark: "denied-1" }));
    expect(result.status).toBe("denied");
    expect(effects).not.toContain("denied-1");
  });
  it("a client without a gate is denied; with autoApprove declared it is not", async () => {
    expect((await dispatcher.dispatch(session({ gate: null }), req("touch", { mark: "nogate" }))).status).toBe("denied");
    expect(effects).not.toContain("nogate");
    const auto = session({ gate: null, grant: grant({ autoApprove: true }) });
    expect((await dispatcher.dispatch(auto, req("touch", { mark: "auto" }))).status).toBe("ok");
  });
  it("never denies side effects without asking; always asks even for reads", async () => {
    asked.length = 0;
    const never = session({ grant: grant({ policy: "never" }) });
    expect((await dispatcher.dispatch(never, req("touch", { mark: "never" }))).status).toBe("denied");
    expect(effects).not.toContain("never");
    await dispatcher.dispatch(session({ grant: grant({ policy: "always" }) }), req("echo", { text: "x" }));
    expect(asked).toEqual(["[test] echo: echo x (read)"]);
  });
  it("a gate that throws denies", async () => {
    const s = session({ gate: async () => Promise.reject(new Error("gone")) });
    expect((await dispatcher.dispatch(s, req("touch", { mark: "throws" }))).status).toBe("denied");
    expect(effects).not.toContain("throws");
  });
  it("a throw becomes a bounded diagnostic without the thrown value", async () => {
    for (const kind of ["error", "value"] as const) {
      const result = await dispatcher.dispatch(session(), req("leaky", { kind }));
      expect(result.status).toBe("failed");
      expect(JSON.stringify(result)).not.toContain(CANARY);
      expect(result.error?.message.length).toBeLessThanOrEqual(240);
    }
    const failure = await dispatcher.dispatch(session(), req("leaky", { kind: "failure" }));
    expect(failure.error?.message).toBe("path escapes the workspace");
  });
  it("bounds the output and says it was cut", async () => {
    const result = await dispatcher.dispatch(session(), req("big", {}));
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(1000);
    expect(result.content).toMatch(/output cut: 10000 bytes/);
  });
  it("a cancelled mutating call is uncertain and forbids retry", async () => {
    const cancellation = new CallCancellation();
    const pending = dispatcher.dispatch(session(), req("touch", { mark: "slow" }, cancellation));
    setTimeout(() => cancellation.cancel(), 20);
    const result = await pending;
    expect(result).toMatchObject({ status: "uncertain", error: { retry: "forbidden" } });
  });
  it("a tool that looks at its signal only after the caller cancelled sees it aborted, with the caller's reason", async () => {
    const cancellation = new CallCancellation();
    let seen: { aborted: boolean; reason: unknown } | undefined;
    const late = defineTool({
      name: "late",
      description: "looks at its signal late",
      input: z.strictObject({}),
      capabilities: [],
      effect: "read-only",
      replay: "safe",
      summarize: () => "late",
      run: async (_i, call) => {
        cancellation.cancel();
        seen = { aborted: call.signal.aborted, reason: call.signal.reason };
        call.signal.throwIfAborted();
        return { content: "not reached" };
      },
    });
    const s = session({ snapshot: new Snapshot([late]), grant: grant({ tools: ["late"] }) });
    const result = await dispatcher.dispatch(s, req("late", {}, cancellation));
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBeInstanceOf(CallCancelled);
    expect(result.status).toBe("cancelled");
  });
  it("the deadline aborts the call with a CallDeadline reason, bounded by the ceiling", async () => {
    let reason: unknown;
    const slow = defineTool({
      name: "slow",
      description: "waits",
      input: z.strictObject({}),
      capabilities: [],
      effect: "read-only",
      replay: "safe",
      summarize: () => "slow",
      run: (_i, call) =>
        new Promise((_, reject) =>
          call.signal.addEventListener("abort", () => {
            reason = call.signal.reason;
            reject(reason);
          }),
        ),
    });
    const s = session({
      snapshot: new Snapshot([slow]),
      grant: grant({ tools: ["slow"] }),
      limits: { maxTimeoutSeconds: 0.05, maxOutputBytes: 100 },
    });
    const result = await dispatcher.dispatch(s, req("slow", {}, undefined, 3600));
    expect(result.status).toBe("cancelled");
    expect(reason).toBeInstanceOf(CallDeadline);
  });
  it("a decorator can deny before execution, and a throwing decorator fails the call", async () => {
    const containment: Decorator<null> = async (call, next) =>
      (call.input as { mark?: string }).mark === "outside"
        ? { status: "denied", content: "", error: { message: "outside", retry: "allowed" } }
        : next();
    const throwing: Decorator<null> = async () => {
      throw new Error(CANARY);
    };
    const d = new Dispatcher<null>([containment]);
    expect((await d.dispatch(session(), req("touch", { mark: "outside" }))).status).toBe("denied");
    expect(effects).not.toContain("outside");
    const t = await new Dispatcher<null>([throwing]).dispatch(session(), req("touch", { mark: "t" }));
    expect(t.status).toBe("failed");
    expect(JSON.stringify(t)).not.toContain(CANARY);
    expect(effects).not.toContain("t");
  });
});
