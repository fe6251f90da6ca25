import { AgentEventSchema, terminalSafe } from "@venom/proto";

/**
 * `run`'s progress line for an event/agent notification (checked against
 * proto's schema; anything else prints nothing). Its own module so that `run`
 * loads zod when it runs, not every command at start.
 */
export function progressLine(program: string, method: string, params: unknown): string | undefined {
  const event = method === "event/agent" ? AgentEventSchema.safeParse(params) : null;
  if (!event?.success) return undefined;
  const { name, state, detail } = event.data;
  return `${program}: ${name} ${state}${detail ? ` ${terminalSafe(detail, { singleLine: true })}` : ""}`;
}
