import { isAbsolute } from "node:path";
import { configSection } from "@venom/runtime/config";
import * as z from "zod";

// Other hosts' configuration (docs/remote.md, "Setup"); host-link.ts reaches them.

/** A host's name, as `--host NAME` and the job list give it. */
const HOST_NAME = /^[a-z][a-z0-9-]{0,31}$/;

const absolutePath = z.string().min(1).max(4096).refine(isAbsolute, "must be an absolute path");

/**
 * `[hosts.NAME]`: `ssh = "user@host"` with optional `port`, `identity`, `known_hosts` and `venom` (venom-mux's
 * path there), or `command = [...]`, the argv of any other transport that runs the bridge there; `workspace` is the
 * directory there the agents run in (the remote venom-mux's own workspace when absent).
 */
const HostSchema = z
  .strictObject({
    ssh: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[A-Za-z0-9._@:[\]-]+$/, "a destination: user@host, letters, digits and . _ - @ : [ ] only")
      // Nothing ssh could take for an option (it also comes after "--").
      .refine((v) => !v.startsWith("-"), 'a destination may not start with "-"')
      .optional(),
    port: z.number().int().min(1).max(65535).optional(),
    identity: absolutePath.optional(),
    /** ssh's UserKnownHostsFile for this host: checking stays on, only the file it is checked against changes. */
    known_hosts: absolutePath.optional(),
    venom: z
      .string()
      .min(1)
      .max(4096)
      .refine((v) => !v.startsWith("-"), 'may not start with "-"')
      .optional(),
    workspace: absolutePath.optional(),
    command: z.array(z.string().min(1)).min(1).optional(),
  })
  .superRefine((host, ctx) => {
    if ((host.ssh === undefined) === (host.command === undefined)) {
      ctx.addIssue({ code: "custom", path: [], message: 'give either ssh = "user@host" or command = ["…"], not both or neither' });
    }
    if (host.command !== undefined) {
      for (const key of ["port", "identity", "known_hosts", "venom"] as const) {
        if (host[key] !== undefined)
          ctx.addIssue({ code: "custom", path: [key], message: `${key} is an ssh setting: with command, put it in the argv` });
      }
    }
  });
export type HostConfig = z.infer<typeof HostSchema>;

/** `[hosts]`: user configuration only (a project's config.toml cannot name a program to run, docs/remote.md "Setup"). */
export const hostsSection = configSection(
  "hosts",
  z
    .record(z.string(), HostSchema)
    .superRefine((hosts, ctx) => {
      for (const name of Object.keys(hosts)) {
        if (!HOST_NAME.test(name))
          ctx.addIssue({ code: "custom", path: [name], message: "not a host name: a-z, 0-9 and -, starting with a letter" });
      }
    })
    .default({}),
);
