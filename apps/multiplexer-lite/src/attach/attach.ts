import type { CliApp, VenomHome } from "@venom/runtime";

/** Placeholder until the attach UI lands: interactive attach is not available yet. */
export async function attachToPane(_app: CliApp, _home: VenomHome, _target: string): Promise<number> {
  throw new Error("attach is not implemented yet");
}
