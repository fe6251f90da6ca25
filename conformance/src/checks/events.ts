import { Notifications } from "@venom/proto";
import { type Check, rfc0008 } from "../check.js";
import { markedCalls } from "../probes.js";
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
      "during approved calls whose arguments and output carry markers the suite chose (an echo, a read of a planted secret, a write, a run), every notification of a method venom/1 defines matches its schema, and no notification of any method carries a marker",
    needs: ["echo", "read", "write", "run"],
    async run(ctx) {
      const { client } = await ctx.session({ label: "events", approve: "approve" });
      const marked = await markedCalls(ctx, client);
      const markers = [...marked.inArguments, ...marked.inOutput];
      const schemas = Notifications as Record<string, { params: { safeParse(value: unknown): { success: boolean } } }>;
      for (const { method, params } of client.notifications) {
        const schema = schemas[method]?.params;
        expect(!schema || schema.safeParse(params).success, `${method} does not match venom/1's schema for it: ${JSON.stringify(params)}`);
        const text = JSON.stringify(params) ?? "";
        const carried = markers.find((value) => text.includes(value));
        expect(carried === undefined, `${method} carries what a call was given or returned (${carried}): ${text}`);
      }
      return `${client.notifications.length} notifications during ${markers.length} marked values, none carrying one`;
    },
  },
];
