import { constants } from "node:os";
import type { PaneInfo } from "@venom/proto";
import type { VenomClient } from "@venom/runtime/cli";

/** How a wait for a pane ended. */
export type PaneWaitResult = Awaited<ReturnType<typeof waitOnce>> | { reason: "match"; line: string };

/**
 * Waits for a pane in one call instead of a polling loop, as `venom-mux wait` does (it runs this): until a line of
 * its screen matches `for` (the regex runs here, never in the daemon), until it prints nothing for `quietMs`, else
 * until its program exits; `deadline` (ms since the epoch) ends it with reason "timeout".
 */
export async function waitForPane(
  client: VenomClient,
  target: string,
  until: { for?: RegExp; quietMs?: number; deadline?: number },
): Promise<PaneWaitResult> {
  const pattern = until.for;
  if (!pattern) return waitOnce(client, target, until.deadline, until.quietMs ? { quietMs: until.quietMs } : {});
  let since = 0;
  const match = async () => {
    const screen = await client.request("pane/capture", { target });
    since = screen.printed;
    return screen.text.split("\n").find((line) => pattern.test(line));
  };
  for (;;) {
    const line = await match();
    if (line !== undefined) return { reason: "match", line };
    // Output between that capture and this wait counts: a program that printed its prompt once and then waits for input is seen.
    const next = await waitOnce(client, target, until.deadline, { output: true, since });
    if (next.reason === "output") continue;
    // One last look: the output that came with the exit may hold the match.
    const last = next.reason === "exit" ? await match() : undefined;
    return last === undefined ? next : { reason: "match", line: last };
  }
}

function waitOnce(
  client: VenomClient,
  target: string,
  deadline: number | undefined,
  also: { quietMs?: number; output?: boolean; since?: number },
) {
  const seconds = deadline === undefined ? undefined : Math.max(0.001, (deadline - Date.now()) / 1000);
  return client.request("pane/wait", { target, ...(seconds ? { timeoutSeconds: seconds } : {}), ...also });
}

/** The exit code a shell would give for how the pane's program ended: its code, else 128 + the signal's number. */
export function paneExitCode({ exitCode, signal }: PaneInfo): number | null {
  if (signal) return 128 + ((constants.signals as Record<string, number>)[signal] ?? 0);
  return exitCode ?? null;
}
