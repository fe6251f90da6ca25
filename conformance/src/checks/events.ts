import { Notifications } from "@venom/proto";
import { type Check, rfc0008 } from "../check.js";
import { effectProbes, nonce } from "../probes.js";
import { expect } from "../verdict.js";

export const eventsChecks: readonly Check[] = [
  {
    id: "events/minimal",
    level: "MUST",
    requirement: rfc0008("Secrets and sensitive data", "Interaction events carry only identity, kind, and lifecycle status."),
    also: [
      rfc0008(
        "Secrets and sensitive data",
        "Prompt text, schemas, approvals, secrets, and user-entered response JSON never enter the event log or replay stream; the validated response is returned directly to the requesting stage.",
      ),
    ],
    expected:
      "the notifications sent during approved calls (an echo, a read of a planted secret, a write, a run) match venom/1's event schemas exactly and carry none of the calls' arguments or output",
    needs: ["echo", "read", "write", "run"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "events", approve: "approve" });
      // What a call's arguments and output look like inside a JSON line.
      const inJson = (text: string) => JSON.stringify(text).slice(1, -1);
      const marker = `venom-conformance-marker-${nonce()}`;
      const contents = [inJson(marker)];
      if (ctx.tool("echo")) await ctx.callTool(client, "echo", { text: marker });
      for (const probe of effectProbes(ctx, ctx.run.workspace, ctx.dir("events"))) {
        contents.push(inJson((await ctx.callTool(client, probe.tool, probe.args)).content));
      }
      const notifications = client.notifications;
      const schemas = Notifications as Record<string, { params: { safeParse(value: unknown): { success: boolean } } }>;
      for (const { method, params } of notifications) {
        const schema = schemas[method]?.params;
        expect(!schema || schema.safeParse(params).success, `${method} does not match venom/1's schema for it`);
        const text = JSON.stringify(params);
        expect(!contents.some((content) => content !== "" && text.includes(content)), `${method} carries a call's arguments or output`);
      }
      return `${notifications.length} notifications, none carrying arguments or output`;
    },
  },
];
