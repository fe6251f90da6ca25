import { configSection } from "@venom/runtime/config";
import * as z from "zod";

/** `[greeter]` in config.toml: what venom-greeter says before a name. */
export const greeterSection = configSection(
  "greeter",
  z.strictObject({ greeting: z.string().min(1).max(64).default("hello") }).prefault({}),
);
