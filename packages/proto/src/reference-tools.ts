/**
 * The reference tool set of venom/1 (`echo`, `read`, `write`, `run`): the
 * arguments each takes and the `data` its result carries, declared once.
 * venom-echo's tools are built on these; docs/protocol.md is generated from
 * them, so a daemon written from the docs offers the same contract.
 */
import * as z from "zod";

const Sha256Schema = z.string().regex(/^[0-9a-fA-F]{64}$/);
const RelativePathSchema = z.string().min(1).max(4096);

export const EchoInputSchema = z.strictObject({ text: z.string().max(64 * 1024) });

export const ReadInputSchema = z.strictObject({
  /** Relative to the session's workspace; absolute paths and `..` are refused. */
  path: RelativePathSchema,
});
export const ReadDataSchema = z.strictObject({
  path: z.string(),
  /** The file's size, whether or not all of it was returned. */
  bytes: z.number().int(),
  /** The content was cut at `tools.max_read_bytes` (the content says so too). */
  truncated: z.boolean(),
  /** sha256 of the whole file, when all of it was returned: what `write`'s `expectedSha256` takes. */
  sha256: Sha256Schema.optional(),
});

/** Base64 as RFC 4648 writes it, padded: what every encoder gives, and nothing a decoder would have to guess at. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const WriteInputSchema = z
  .strictObject({
    path: RelativePathSchema,
    content: z.string(),
    encoding: z.enum(["utf8", "base64"]).default("utf8"),
    /** sha256 of the file being replaced, as last seen; a mismatch writes nothing and names both hashes. */
    expectedSha256: Sha256Schema.optional(),
  })
  // Node decodes bad base64 to whatever it can (often nothing) without a word: a file replaced by 0 bytes.
  .refine((input) => input.encoding !== "base64" || BASE64.test(input.content), {
    path: ["content"],
    message: "not valid base64 (RFC 4648, padded); nothing was written",
  });
export const WriteDataSchema = z.strictObject({
  path: z.string(),
  /** The new content is installed under its name. */
  committed: z.boolean(),
  /** The file and its directory were fsynced; reported apart from the commit. */
  durable: z.boolean(),
  created: z.boolean(),
  bytes: z.number().int(),
  sha256: Sha256Schema,
});

export const RunInputSchema = z
  .strictObject({
    /** A program and its arguments, run without a shell. */
    argv: z
      .array(z.string().max(64 * 1024))
      .min(1)
      .max(1024)
      .optional(),
    /** A command line, run with `/bin/bash -lc`. */
    command: z
      .string()
      .min(1)
      .max(64 * 1024)
      .optional(),
    /** Where it runs, relative to the workspace (default: the workspace); must resolve to a directory inside it. */
    cwd: RelativePathSchema.optional(),
  })
  .refine((input) => (input.argv === undefined) !== (input.command === undefined), { message: "give exactly one of argv and command" });
export const RunDataSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** The deadline killed the process group. */
  timedOut: z.boolean(),
  /** The combined output was cut (its tail is kept; the content says so too). */
  truncated: z.boolean(),
  outputBytes: z.number().int(),
});

/** Each reference tool: its arguments and the `data` of a result that succeeded. */
export const ReferenceTools = {
  echo: { input: EchoInputSchema, data: undefined },
  read: { input: ReadInputSchema, data: ReadDataSchema },
  write: { input: WriteInputSchema, data: WriteDataSchema },
  run: { input: RunInputSchema, data: RunDataSchema },
} as const;
