import type { PaneInfo, PaneNewParamsSchema } from "@venom/proto";
import type { z } from "zod";
import { Connection, type ConnectOptions } from "./connection.js";
import { type PaneWaitResult, paneExitCode, waitForPane } from "./pane-wait.js";

export type NewPane = z.input<typeof PaneNewParamsSchema>;

/** What to wait for: a line of the screen, a quiet spell, or (the default) the program's exit. */
export interface WaitFor {
  for?: RegExp;
  quietMs?: number;
  timeoutSeconds?: number;
}

/** A venom-mux daemon's panes over one connection (docs/client.md). */
export class Panes {
  private constructor(readonly connection: Connection) {}

  static async connect(options: ConnectOptions = {}): Promise<Panes> {
    return new Panes(await Connection.open("mux", options));
  }

  /** A pane running `argv` (default: your shell), as `venom-mux new -d`. */
  newPane(pane: NewPane = {}): Promise<PaneInfo> {
    return this.connection.client.request("pane/new", pane);
  }

  async list(): Promise<PaneInfo[]> {
    return (await this.connection.client.request("pane/list", {})).panes;
  }

  /** Types `text` as it is, then tmux key names (`Enter`, `C-c`, `Up`), as `venom-mux send`. */
  async send(target: string, text: string, ...keys: string[]): Promise<void> {
    await this.connection.client.request("pane/send", { target, data: text, keys: keys.map((key) => ({ key })) });
  }

  /** Pastes `text` as tmux's `paste-buffer -p`: bracketed when the program asked for it, newlines as Enter. */
  async paste(target: string, text: string): Promise<void> {
    await this.connection.client.request("pane/send", { target, data: text, paste: true });
  }

  /** The screen's text; `start` below 0 reaches into history (tmux `-S`). */
  async capture(target: string, lines: { start?: number; end?: number } = {}): Promise<string> {
    return (await this.connection.client.request("pane/capture", { target, ...lines })).text;
  }

  /** The last `count` lines that are not blank, of the screen and the history above it. */
  async lastLines(target: string, count: number): Promise<string[]> {
    const text = await this.capture(target, { start: -count });
    return text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .slice(-count);
  }

  /** Waits in one request, never a polling loop; "timeout" when `timeoutSeconds` passed first. */
  wait(target: string, what: WaitFor = {}): Promise<PaneWaitResult> {
    const deadline = what.timeoutSeconds === undefined ? undefined : Date.now() + what.timeoutSeconds * 1000;
    return waitForPane(this.connection.client, target, { ...what, ...(deadline ? { deadline } : {}) });
  }

  /** Waits for the program to exit; its exit code (128 + N for signal N), or null if it is still running at the timeout. */
  async exitCode(target: string, timeoutSeconds?: number): Promise<number | null> {
    const result = await this.wait(target, timeoutSeconds ? { timeoutSeconds } : {});
    return result.reason === "exit" ? paneExitCode(result.pane) : null;
  }

  resize(target: string, cols: number, rows: number): Promise<PaneInfo> {
    return this.connection.client.request("pane/resize", { target, cols, rows });
  }

  async kill(target: string): Promise<void> {
    await this.connection.client.request("pane/kill", { target });
  }

  /**
   * Streams what the pane prints (as an attached client sees it: terminal output, escape sequences included) to
   * `onOutput`, starting with its current screen; the returned function stops it.
   */
  async watch(target: string, onOutput: (data: string) => void): Promise<() => Promise<void>> {
    // The daemon answers the attach before it sends the attachment's first output.
    let attachment: string | undefined;
    const forward = (params: unknown) => {
      const { attachment: from, data, screen } = params as { attachment: string; data?: string; screen?: string };
      if (from === attachment) onOutput(data ?? screen ?? "");
    };
    const offOutput = this.connection.on("pane/output", forward);
    const offRedraw = this.connection.on("pane/redraw", forward);
    const attached = await this.connection.client.request("pane/attach", { target });
    attachment = attached.attachment;
    onOutput(attached.screen);
    return async () => {
      offOutput();
      offRedraw();
      await this.connection.client.request("pane/detach", { attachment: attached.attachment });
    };
  }

  close(): void {
    this.connection.close();
  }
}
