import type { ToolResult } from "@venom/proto";
import { Connection, type ConnectOptions } from "./connection.js";

/** A daemon's tools (venom-echo's echo, read, write and run; any venom/1 daemon's) over one connection (docs/client.md). */
export class Tools {
  private constructor(readonly connection: Connection) {}

  static async connect(options: ConnectOptions = {}): Promise<Tools> {
    return new Tools(await Connection.open("echo", options));
  }

  async list(): Promise<string[]> {
    return (await this.connection.client.request("tools/list")).tools.map((tool) => tool.name);
  }

  /** Calls a tool; a write or run that needs approval asks `approve` first. */
  call(tool: string, args: Record<string, unknown>, timeoutSeconds?: number): Promise<ToolResult> {
    return this.connection.client.callTool(tool, args, timeoutSeconds ? { timeoutSeconds } : {});
  }

  close(): void {
    this.connection.close();
  }
}
