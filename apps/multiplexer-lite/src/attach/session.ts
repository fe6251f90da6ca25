import { basename } from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { PaneInfo } from "@venom/proto";
import { type CliApp, RpcClosed, type VenomClient, type VenomHome } from "@venom/runtime/cli";
import { keyBytes } from "../commands/bindings.js";
import type { CommandHost, CommandOutcome } from "../commands/command.js";
import { runPromptCommand } from "../commands/command-line.js";
import { insideOwnPane } from "../common/nesting.js";
import { ApprovalWatch } from "./approvals.js";
import { Chooser } from "./chooser.js";
import { connectAttached } from "./connection.js";
import { PaneDisplay, type StatusBar } from "./display.js";
import { keyLength, PrefixReader } from "./keys.js";
import { Message, type Overlay } from "./overlay.js";
import { Confirm, Prompt } from "./prompt.js";
import type { ClientSettings } from "./settings.js";
import { renderStatus, statusText } from "./status-line.js";
import type { OuterTerminal } from "./terminal.js";

/** How an attached client ended: its exit code and the line printed once the terminal is restored. */
export interface Outcome {
  code: number;
  message: string;
  stream: "stdout" | "stderr";
}

/** Attaching inside one of the daemon's own panes: a refusal (exit 3), like every refusal. */
export class NestingRefused extends Error {
  override readonly name = "NestingRefused";
}

/** How long a message stays on the bottom line when no key is typed. */
const MESSAGE_MS = 2_000;
/** How long after the pane's output erased the status line it is drawn again (with the screen, from the server). */
const STATUS_REDRAW_MS = 100;
/** How often the status line looks for panes made or ended elsewhere and for a new title (tmux's status-interval is 15 s). */
const STATUS_INTERVAL_MS = 5_000;
/** Events of a new attachment read before its pane/attach answer is taken (a server sends none, but one socket read could hold some). */
const MAX_EARLY = 10_000;

interface PaneEvent {
  method: string;
  params: { attachment: string };
}

/**
 * One attached client: the pane's output on the user's terminal, the user's
 * keys to the pane, and venom-mux's own keys after the prefix. Everything that
 * changes what is shown (keys, exits, redraws after a screen switch, resizes)
 * runs one at a time, in order, so a switch never races typing.
 */
export class AttachSession implements CommandHost {
  #client: VenomClient | undefined;
  #pane: PaneInfo | undefined;
  #lastPane: string | undefined;
  /** When the pane shown is gone, end here rather than move to another (venom-orch's attach to one job). */
  readonly #exitWithPane: boolean;
  /** The attachment this client holds on the server. */
  #attachment: string | undefined;
  /** Whether that attachment's output is drawn (not while a switch or a redraw is on its way). */
  #live = false;
  #attaching = false;
  /** The attachment being replaced while a new one is on its way: its events are dropped. */
  #letGo: string | undefined;
  #early: PaneEvent[] = [];
  readonly #display: PaneDisplay;
  readonly #reader: PrefixReader;
  /** The prefix table: the bytes of the key after the prefix, and the command line it runs (commands/bindings.ts). */
  readonly #bindings: Map<string, string>;
  readonly #decoder = new StringDecoder("utf8");
  #overlay: Overlay | undefined;
  #queue: Promise<void> = Promise.resolve();
  #started = false;
  #finished = false;
  #stopping = false;
  #resizeQueued = false;
  #messageTimer: NodeJS.Timeout | undefined;
  readonly #status: boolean;
  /** The running panes as last listed, and the status line as last drawn. */
  #statusPanes: PaneInfo[] = [];
  #statusDrawn = "";
  #statusRedraw: NodeJS.Timeout | undefined;
  #statusTimer: NodeJS.Timeout | undefined;
  /** venom-orch's questions waiting for the person, shown on the status line. */
  readonly #approvals: ApprovalWatch | undefined;
  /** A bridge to a daemon on another host, instead of this home's socket (connection.ts). */
  readonly #via: readonly string[] | undefined;
  #resolve: (outcome: Outcome) => void = () => undefined;
  readonly #done = new Promise<Outcome>((resolve) => {
    this.#resolve = resolve;
  });

  constructor(
    readonly app: CliApp,
    private readonly home: VenomHome,
    private readonly terminal: OuterTerminal,
    settings: Pick<ClientSettings, "prefix" | "status" | "bindings"> & { exitWithPane?: boolean; via?: readonly string[] },
  ) {
    this.#exitWithPane = settings.exitWithPane === true;
    this.#via = settings.via;
    this.#reader = new PrefixReader(settings.prefix);
    this.#bindings = new Map(settings.bindings.map(({ key, command }) => [keyBytes(key) as string, command]));
    this.#status = settings.status;
    this.#approvals = settings.status
      ? new ApprovalWatch(home, app.version, (ring) => this.#enqueue(() => this.#approvalsChanged(ring)))
      : undefined;
    this.#display = new PaneDisplay(terminal, () => this.#live && !this.#overlay, settings.status ? this.#statusBar() : undefined);
  }

  get client(): VenomClient {
    if (!this.#client) throw new Error("not connected");
    return this.#client;
  }

  get pane(): PaneInfo | undefined {
    return this.#pane;
  }

  /** The size of a pane shown here: this terminal's, less the status line. */
  size(): { cols: number; rows: number } {
    return { cols: this.terminal.cols, rows: Math.max(2, this.terminal.rows - (this.#status ? 1 : 0)) };
  }

  // ── the status line ─────────────────────────────────────────────────────

  #statusBar(): StatusBar {
    return {
      paneRows: () => this.size().rows,
      draw: () => {
        this.#statusDrawn = this.#statusText();
        return renderStatus(this.#statusDrawn, this.terminal.rows);
      },
      erased: () => {
        // Drawn again with the whole screen once the output pauses; a redraw is already due in the meantime.
        if (this.#statusRedraw) return;
        this.#statusRedraw = setTimeout(() => this.#enqueue(() => this.#redrawStatus()), STATUS_REDRAW_MS);
      },
    };
  }

  #statusText(): string {
    const label = basename(this.client.hello.workspace ?? "") || this.app.program;
    const notice = this.#approvals?.notice;
    return statusText(
      { label, panes: this.#statusPanes, current: this.#pane?.id, last: this.#lastPane, ...(notice ? { notice } : {}) },
      this.terminal.cols,
    );
  }

  /** A question started waiting, was answered, or a job ended: the count redrawn, and the bell rung once when it asks for the person. */
  async #approvalsChanged(ring: boolean): Promise<void> {
    if (this.#finished) return;
    if (ring) this.terminal.write("\x07");
    if (!this.#overlay && !this.#statusRedraw && this.#statusText() !== this.#statusDrawn) await this.#refresh();
  }

  async #redrawStatus(): Promise<void> {
    this.#statusRedraw = undefined;
    if (!this.#overlay) await this.#refresh();
  }

  /** tmux's status-interval: panes made or ended elsewhere, and the title, are seen this often. */
  async #pollStatus(): Promise<void> {
    this.#approvals?.poll();
    this.#statusPanes = await this.#running();
    if (!this.#overlay && !this.#statusRedraw && this.#statusText() !== this.#statusDrawn) await this.#refresh();
  }

  /**
   * Attach to `target` and serve the terminal until the client detaches, its
   * last pane exits or the daemon goes away. Failing before the terminal is
   * taken over (no daemon, no such pane, an exited pane unless `made` by
   * `new` just now) throws, with the terminal untouched.
   */
  async run(target: string | undefined, made = false): Promise<Outcome> {
    this.#client = await connectAttached(
      this.app,
      this.home,
      {
        onEvent: (method, params) => this.#onEvent(method, params),
        onClose: () => this.#onClose(),
      },
      this.#via,
    );
    try {
      this.#refuseNesting(this.#client.hello.instance);
      await this.#attach(target ?? (await this.#newest()), true, !made);
    } catch (error) {
      this.#client.close();
      this.terminal.restore();
      if (error instanceof RpcClosed) throw new Error(`the ${this.app.program} daemon closed the connection`);
      throw error;
    }
    this.#started = true;
    if (this.#status) this.#statusTimer = setInterval(() => this.#enqueue(() => this.#pollStatus()), STATUS_INTERVAL_MS);
    this.#approvals?.poll();
    this.terminal.input.on("data", this.#onInput);
    this.terminal.input.resume();
    process.on("SIGWINCH", this.#onResize);
    return this.#done;
  }

  /** Attaching inside one of this daemon's own panes would nest the panes in themselves; switching is what the prefix keys are for. */
  #refuseNesting(instance: string): void {
    if (insideOwnPane(instance)) {
      throw new NestingRefused(
        `refused: this terminal is one of this ${this.app.program} daemon's panes, and attaching here would nest the panes in themselves; switch panes from the attached client (prefix n, p, w) or attach from a terminal outside ${this.app.program}`,
      );
    }
  }

  // ── events from the daemon ─────────────────────────────────────────────

  #onEvent(method: string, params: unknown): void {
    const attachment = (params as { attachment?: unknown } | null)?.attachment;
    if (typeof attachment !== "string") return;
    const event = { method, params: params as PaneEvent["params"] };
    if (attachment === this.#attachment && this.#live) this.#dispatch(event);
    else if (this.#attaching && attachment !== this.#letGo && this.#early.length < MAX_EARLY) this.#early.push(event);
  }

  #dispatch({ method, params }: PaneEvent): void {
    switch (method) {
      case "pane/output": {
        const data = (params as { data?: unknown }).data;
        if (!this.#overlay && typeof data === "string" && this.#display.output(data)) {
          // The outer terminal does not have the pane's normal screen: ask the server for it.
          this.#live = false;
          this.#enqueue(() => this.#refresh());
        }
        return;
      }
      case "pane/redraw": {
        const screen = (params as { screen?: unknown }).screen;
        if (!this.#overlay && typeof screen === "string") this.#display.screen(screen);
        return;
      }
      case "pane/exited": {
        if (this.#stopping) return;
        const pane = (params as { pane?: PaneInfo }).pane;
        this.#live = false;
        if (pane) this.#enqueue(() => this.#exited(pane));
        return;
      }
    }
  }

  #onClose(): void {
    if (this.#finished || !this.#started) return;
    if (this.#stopping) this.#finish({ code: 0, message: "[server exited]", stream: "stdout" });
    else {
      this.#finish({
        code: 1,
        message: `[lost server] ${this.app.program} attach: the connection to the ${this.app.program} daemon closed (it was stopped or it crashed)`,
        stream: "stderr",
      });
    }
  }

  // ── attaching ──────────────────────────────────────────────────────────

  /**
   * Attach `target` (resized to this terminal when `resize`) and draw its
   * screen, then its live output; the attachment held before is let go.
   */
  async #attach(target: string, resize: boolean, initial = false): Promise<void> {
    const client = this.client;
    if (this.#status) await this.#running();
    const previous = this.#attachment;
    this.#live = false;
    this.#letGo = previous;
    this.#attaching = true;
    this.#early = [];
    let result: Awaited<ReturnType<typeof client.request<"pane/attach">>>;
    try {
      result = await client.request("pane/attach", { target, ...(resize ? this.size() : {}) });
    } finally {
      this.#attaching = false;
      if (previous !== undefined) void client.request("pane/detach", { attachment: previous }).catch(() => undefined);
      if (this.#attachment === previous) this.#attachment = undefined;
    }
    if (initial && result.pane.status !== "running") {
      void client.request("pane/detach", { attachment: result.attachment }).catch(() => undefined);
      throw new Error(`pane ${result.pane.id} (${result.pane.name}) has exited; ${this.app.program} ls lists the panes`);
    }
    this.#attachment = result.attachment;
    this.#live = true;
    if (this.#pane && this.#pane.id !== result.pane.id) this.#lastPane = this.#pane.id;
    this.#pane = result.pane;
    this.#overlay = undefined;
    this.terminal.enter();
    this.#display.screen(result.screen);
    const early = this.#early;
    this.#early = [];
    for (const event of early) {
      if (event.params.attachment === this.#attachment && this.#live) this.#dispatch(event);
    }
    if (result.pane.status !== "running" && this.#live) {
      this.#live = false;
      this.#enqueue(() => this.#exited(result.pane));
    }
  }

  /** Draw the current pane again from the server (after an overlay, or when the pane left its alternate screen). */
  async #refresh(): Promise<void> {
    const pane = this.#pane;
    if (!pane || this.#finished) return;
    const { cols, rows } = this.size();
    try {
      await this.#attach(pane.id, pane.cols !== cols || pane.rows !== rows);
    } catch (error) {
      if (this.#closed(error)) throw error;
      await this.leave(pane);
    }
  }

  async #exited(pane: PaneInfo): Promise<void> {
    // Stale when the client has moved on since (switched, or attached again).
    if (this.#pane?.id !== pane.id || this.#live) return;
    await this.leave(pane);
  }

  /**
   * The current pane is gone: go to the last pane, else the next one; with
   * none running, or under --exit-with-pane, detach with [exited] (tmux).
   */
  async leave(gone: PaneInfo): Promise<void> {
    this.#live = false;
    for (let attempt = 0; attempt < 3; attempt++) {
      const running = this.#exitWithPane ? [] : (await this.#running()).filter((p) => p.id !== gone.id);
      const next = running.find((p) => p.id === this.#lastPane) ?? running.find((p) => p.index > gone.index) ?? running[0];
      if (!next) {
        this.#finish({ code: 0, message: "[exited]", stream: "stdout" });
        return;
      }
      try {
        await this.#attach(next.id, true);
        return;
      } catch (error) {
        if (this.#closed(error)) throw error;
        // That pane went away meanwhile: look again.
      }
    }
    this.#finish({ code: 1, message: `${this.app.program} attach: no pane could be attached`, stream: "stderr" });
  }

  async switchTo(target: string): Promise<void> {
    try {
      await this.#attach(target, true);
    } catch (error) {
      if (this.#closed(error)) throw error;
      await this.#refresh();
      this.#message(describe(error));
    }
  }

  async cycle(direction: 1 | -1): Promise<void> {
    const running = await this.#running();
    const here = running.findIndex((p) => p.id === this.#pane?.id);
    const others = running.length - (here === -1 ? 0 : 1);
    if (others === 0) {
      this.#message(`no ${direction > 0 ? "next" : "previous"} pane`);
      return;
    }
    const next = here === -1 ? running[0] : running[(here + direction + running.length) % running.length];
    if (next) await this.switchTo(next.id);
  }

  async last(): Promise<void> {
    const last = this.#lastPane === undefined ? undefined : (await this.#running()).find((p) => p.id === this.#lastPane);
    if (last) await this.switchTo(last.id);
    else this.#message("no last pane");
  }

  async selectIndex(index: number): Promise<void> {
    const pane = (await this.#running()).find((p) => p.index === index);
    if (!pane) this.#message(`no pane with index ${index}`);
    else if (pane.id !== this.#pane?.id) await this.switchTo(pane.id);
  }

  /** With no target, the newest running pane. */
  async #newest(): Promise<string> {
    const newest = (await this.#running()).at(-1);
    if (!newest) throw new Error(`no running panes; open one with ${this.app.program} new`);
    return newest.id;
  }

  /** The running panes in index order (what the status line shows, too). */
  async #running(): Promise<PaneInfo[]> {
    const { panes } = await this.client.request("pane/list");
    this.#statusPanes = panes.filter((p) => p.status === "running").sort((a, b) => a.index - b.index);
    return this.#statusPanes;
  }

  detach(): void {
    this.#finish({ code: 0, message: `[detached (from pane ${this.#pane?.id ?? "?"})]`, stream: "stdout" });
  }

  async stopServer(): Promise<void> {
    this.#stopping = true;
    try {
      await this.client.request("daemon/stop");
    } catch (error) {
      this.#stopping = false;
      throw error;
    }
    this.#live = false;
    this.#overlay = new Message(`${this.app.program} server stopping…`);
    this.terminal.write(this.#overlay.render(this.terminal.cols, this.terminal.rows));
  }

  // ── keys ───────────────────────────────────────────────────────────────

  readonly #onInput = (chunk: Buffer): void => {
    const text = this.#decoder.write(chunk);
    if (text !== "") this.#enqueue(() => this.#input(text));
  };

  async #input(text: string): Promise<void> {
    let rest = text;
    while (rest !== "" && !this.#finished) {
      const overlay = this.#overlay;
      if (overlay) {
        const n = keyLength(rest);
        rest = (await this.#overlayKey(overlay, rest.slice(0, n))) + rest.slice(n);
        continue;
      }
      const { step, rest: after } = this.#reader.next(rest);
      rest = after;
      if (step.kind === "send") this.#send(step.data);
      else if (step.kind === "command") await this.#command(step.key);
    }
  }

  #send(data: string): void {
    if (!this.#pane) return;
    void this.client.request("pane/send", { target: this.#pane.id, data }).catch(() => undefined);
  }

  sendPrefix(): void {
    this.#send(this.#reader.prefix);
  }

  commandPrompt(label: string, initial: string, toLine: (text: string) => string): void {
    this.#open(new Prompt(label, initial, toLine));
  }

  confirm(question: string, line: string): void {
    this.#open(new Confirm(question, line));
  }

  async choosePane(): Promise<void> {
    this.#open(new Chooser(await this.#running(), this.#pane?.id));
  }

  /** The key typed after the prefix runs the command line the prefix table binds to it; an unbound key does nothing, as in tmux. */
  async #command(key: string): Promise<void> {
    const line = this.#bindings.get(key);
    // No overlay covers the pane when a key runs its command: nothing needs drawing again unless the command draws.
    if (line !== undefined) await this.#run(line, false);
  }

  // ── overlays ───────────────────────────────────────────────────────────

  #open(overlay: Overlay): void {
    this.#overlay = overlay;
    this.terminal.write(overlay.render(this.terminal.cols, this.terminal.rows));
  }

  /** One key for the overlay; returns a key to type again once it has closed. */
  async #overlayKey(overlay: Overlay, key: string): Promise<string> {
    const result = overlay.key(key);
    if (result.kind === "stay") {
      this.terminal.write(overlay.render(this.terminal.cols, this.terminal.rows));
      return "";
    }
    this.#overlay = undefined;
    switch (result.kind) {
      case "close":
        await this.#refresh();
        return "";
      case "replay":
        await this.#refresh();
        return result.key;
      case "choose":
        if (result.pane === this.#pane?.id) await this.#refresh();
        else await this.switchTo(result.pane);
        return "";
      case "run":
        await this.#run(result.line);
        return "";
    }
  }

  /**
   * Run a command line; redraw the pane (when an overlay covered it: `covered`) unless the command did, then show what
   * it had to say.
   */
  async #run(line: string, covered = true): Promise<void> {
    let outcome: CommandOutcome;
    try {
      outcome = await runPromptCommand(this, line);
    } catch (error) {
      if (this.#closed(error)) throw error;
      outcome = { message: describe(error) };
    }
    if (this.#finished) return;
    if (covered && !outcome.drew) await this.#refresh();
    if (outcome.message) this.#message(outcome.message);
  }

  /** A message on the bottom line until a key is typed or a moment has passed. */
  #message(text: string): void {
    const shown = new Message(text);
    this.#open(shown);
    clearTimeout(this.#messageTimer);
    this.#messageTimer = setTimeout(() => {
      this.#enqueue(async () => {
        if (this.#overlay !== shown) return;
        this.#overlay = undefined;
        await this.#refresh();
      });
    }, MESSAGE_MS);
  }

  // ── resize ─────────────────────────────────────────────────────────────

  /** SIGWINCH: the pane takes this terminal's size and is drawn again at it (several in a row count once). */
  readonly #onResize = (): void => {
    if (this.#resizeQueued) return;
    this.#resizeQueued = true;
    this.#enqueue(async () => {
      this.#resizeQueued = false;
      const pane = this.#pane;
      if (!pane) return;
      const overlay = this.#overlay;
      try {
        await this.#attach(pane.id, true);
      } catch (error) {
        if (this.#closed(error)) throw error;
        await this.leave(pane);
        return;
      }
      if (overlay && this.#pane?.id === pane.id) this.#open(overlay);
    });
  };

  // ── lifecycle ──────────────────────────────────────────────────────────

  #enqueue(task: () => Promise<void> | void): void {
    this.#queue = this.#queue
      .then(() => (this.#finished ? undefined : task()))
      .catch((error: unknown) => {
        // A closed connection is reported by #onClose, which the socket's close calls.
        if (this.#finished || this.#closed(error)) return;
        this.#finish({ code: 1, message: `${this.app.program} attach: ${describe(error)}`, stream: "stderr" });
      });
  }

  #closed(error: unknown): boolean {
    return error instanceof RpcClosed || this.#client?.rpc.closed === true;
  }

  /** Restore the terminal, close the connection (the server detaches it from its pane), report the outcome. */
  #finish(outcome: Outcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.terminal.input.off("data", this.#onInput);
    process.off("SIGWINCH", this.#onResize);
    this.#display.dispose();
    clearTimeout(this.#messageTimer);
    clearTimeout(this.#statusRedraw);
    clearInterval(this.#statusTimer);
    this.#approvals?.stop();
    this.terminal.restore();
    this.#client?.close();
    this.#resolve(outcome);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
