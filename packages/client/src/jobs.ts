import type { AgentEventSchema, JobState, ToolResult } from "@venom/proto";
import type { z } from "zod";
import { Connection, type ConnectOptions } from "./connection.js";

export type JobProgress = z.infer<typeof AgentEventSchema>;

/** A job as `venom-orch jobs --json` lists it; the fields beyond these are in docs/venom-orch.md. */
export interface Job {
  id: string;
  name: string;
  agent: string;
  state: JobState;
  exitCode?: number | null;
  [field: string]: unknown;
}

export interface RunOptions {
  /** A directory inside the workspace; the workspace root by default. */
  cwd?: string;
  /** Return once the job started; its progress still comes to `onProgress`. */
  background?: boolean;
  timeoutSeconds?: number;
}

/** A venom-orch daemon's jobs over one connection (docs/client.md); its questions go to `approve`. */
export class Jobs {
  private constructor(readonly connection: Connection) {}

  static async connect(options: ConnectOptions = {}): Promise<Jobs> {
    return new Jobs(await Connection.open("orch", options));
  }

  /** Runs `agent` on `prompt` as `venom-orch run`; the result names the job, its state, exit code and pane's tail. */
  run(agent: string, prompt: string, options: RunOptions = {}): Promise<ToolResult> {
    const { timeoutSeconds, ...args } = options;
    return this.connection.client.callTool("agent", { agent, prompt, ...args }, timeoutSeconds ? { timeoutSeconds } : {});
  }

  /** The jobs you may see, newest last. */
  async list(): Promise<Job[]> {
    const result = await this.connection.client.callTool("agent_jobs", {});
    return ((result.data as { jobs?: Job[] } | undefined)?.jobs ?? []) as Job[];
  }

  /** Cancels a running job by id or label (a process-risk call: it asks `approve`). */
  cancel(job: string): Promise<ToolResult> {
    return this.connection.client.callTool("agent_cancel", { job });
  }

  /** Each state change of the jobs this connection launched (what `venom-orch run` prints on stderr). */
  onProgress(listener: (progress: JobProgress) => void): () => void {
    return this.connection.on("event/agent", (params) => listener(params as JobProgress));
  }

  close(): void {
    this.connection.close();
  }
}
