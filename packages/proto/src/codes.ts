/**
 * The protocol name and error codes: plain constants, kept apart from the
 * schemas so a CLI client that checks nothing with zod can use them without
 * loading it (docs/benchmarks.md, a client path that loads no zod).
 */
export const PROTOCOL = "venom/1";
export const SUPPORTED_PROTOCOLS = [PROTOCOL] as const;

/** JSON-RPC error codes of venom/1 (conformance/spec/design.md, "Wire protocol"). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HelloRequired: -32001,
  UnsupportedProtocol: -32002,
  OwnerRequired: -32003,
  DepthLimit: -32004,
  ToolNotGranted: -32005,
  Busy: -32006,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
