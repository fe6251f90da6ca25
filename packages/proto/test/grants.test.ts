import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  capabilitySet,
  computeGrant,
  defineTool,
  type Principal,
  parseMarkers,
  policyDecision,
  Snapshot,
  ToolDefinitionError,
  unattendedAnswer,
} from "../src/index.js";

const owner: Principal = { kind: "owner", depth: 0, parent: null, uid: 0, pid: 1, evidence: [] };
const delegate: Principal = { kind: "delegate", depth: 1, parent: "x/1", uid: 0, pid: 2, evidence: ["environ"] };

const tool = (name: string, extra: Partial<Parameters<typeof defineTool>[0]> = {}) =>
  defineTool({
    name,
    description: `${name} tool`,
    input: z.object({ text: z.string() }),
    capabilities: [],
    effect: "read-only",
    replay: "safe",
    summarize: (i: { text: string }) => i.text,
    run: async () => ({ content: "" }),
    ...extra,
  });

describe("capabilities (RFC 0008: a set with canonical order)", () => {
  it("dedupes and orders whatever order they are declared in", () => {
    expect(capabilitySet(["secret", "fs.read", "process", "fs.read"])).toEqual(["fs.read", "process", "secret"]);
    expect(Object.isFrozen(capabilitySet(["fs.read"]))).toBe(true);
  });
  it("rejects an unknown capability", () => {
    expect(() => capabilitySet(["fs.everything" as never])).toThrow();
  });
});

describe("tool definitions fail closed at load", () => {
  it("a read-only definition that declares fs.write fails", () => {
    expect(() => tool("bad", { capabilities: ["fs.read", "fs.write"] })).toThrow(ToolDefinitionError);
    expect(() => tool("bad", { capabilities: ["process"] })).toThrow(/read-only but declares process/);
  });
  it("a mutating definition cannot be replay-safe", () => {
    expect(() => tool("bad", { effect: "mutating", replay: "safe", capabilities: ["fs.write"] })).toThrow(/replay-safe/);
    expect(tool("ok", { effect: "mutating", replay: "unsafe", capabilities: ["fs.write"] }).risk({ text: "" })).toBe("write");
  });
  it("a name outside the allowed shape fails", () => {
    expect(() => tool("Rm -rf")).toThrow(/must match/);
  });
});

describe("snapshot fingerprint", () => {
  it("is the same whatever order definitions and capabilities are declared in", () => {
    const a = new Snapshot([tool("a", { capabilities: ["fs.read", "secret"] }), tool("b")]);
    const b = new Snapshot([tool("b"), tool("a", { capabilities: ["secret", "fs.read"] })]);
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
  it("changes when a contract changes", () => {
    const a = new Snapshot([tool("a")]);
    const b = new Snapshot([tool("a", { input: z.object({ text: z.string().max(3) }) })]);
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });
  it("is immutable and refuses duplicate names", () => {
    const s = new Snapshot([tool("a")]);
    expect(() => (s.descriptors as unknown as unknown[]).push(1)).toThrow();
    expect(() => new Snapshot([tool("a"), tool("a")])).toThrow(/duplicate/);
  });
});

describe("grants", () => {
  const snapshot = new Snapshot([
    tool("echo"),
    tool("read"),
    tool("write", { effect: "mutating", replay: "unsafe", capabilities: ["fs.write"] }),
  ]);
  it("only the owner manages; no-tools gets none", () => {
    expect(computeGrant({ principal: owner, snapshot, policy: "on-risk" }).manage).toBe(true);
    expect(computeGrant({ principal: delegate, snapshot, policy: "on-risk" }).manage).toBe(false);
    expect(computeGrant({ principal: owner, snapshot, policy: "on-risk", noTools: true }).tools).toEqual([]);
  });
  it("a delegate's grant is the intersection with its parent's: never wider", () => {
    const parent = { tools: ["echo", "write"], policy: "always" as const, autoApprove: false, manage: true };
    const grant = computeGrant({ principal: delegate, snapshot, policy: "on-risk", autoApprove: true, parent });
    expect(grant).toEqual({ tools: ["echo", "write"], policy: "always", autoApprove: false, manage: false });
  });
  it("a delegate cannot auto-approve its own calls by saying so: without a parent that auto-approves it gets nothing", () => {
    expect(computeGrant({ principal: delegate, snapshot, policy: "on-risk", autoApprove: true }).autoApprove).toBe(false);
    expect(computeGrant({ principal: owner, snapshot, policy: "on-risk", autoApprove: true }).autoApprove).toBe(true);
  });
  it("disabled tools are removed", () => {
    expect(computeGrant({ principal: owner, snapshot, policy: "on-risk", disabledTools: ["write"] }).tools).toEqual(["echo", "read"]);
  });
});

describe("approval policy decisions", () => {
  it("on-risk runs reads and asks for the rest; never denies side effects; always asks", () => {
    expect(policyDecision("on-risk", "read")).toBe("allow");
    expect(policyDecision("on-risk", "secret-read")).toBe("ask");
    expect(policyDecision("on-risk", "process")).toBe("ask");
    expect(policyDecision("never", "write")).toBe("deny");
    expect(policyDecision("never", "read")).toBe("allow");
    expect(policyDecision("always", "read")).toBe("ask");
  });
  it("unattended work gets the policy's answer, else autoApprove, else deny", () => {
    expect(unattendedAnswer("on-risk", "read", false)).toBe("allow");
    expect(unattendedAnswer("on-risk", "write", false)).toBe("deny");
    expect(unattendedAnswer("on-risk", "write", true)).toBe("allow");
    expect(unattendedAnswer("never", "write", true)).toBe("deny");
  });
});

describe("delegation markers", () => {
  it("parses depth and parent", () => {
    expect(parseMarkers({ VENOM_DELEGATION_DEPTH: "2", VENOM_PARENT: "orch/abc" })).toEqual({ depth: 2, parent: "orch/abc" });
    expect(parseMarkers({})).toEqual({ depth: 0, parent: null });
  });
  it("a garbled or zero marker still means delegated", () => {
    expect(parseMarkers({ VENOM_DELEGATION_DEPTH: "lots" }).depth).toBe(1);
    expect(parseMarkers({ VENOM_DELEGATION_DEPTH: "0" }).depth).toBe(1);
    expect(parseMarkers({ VENOM_PARENT: "x" }).depth).toBe(1);
  });
});
