import { spawn } from "node:child_process";
import { type InboxDetailsResultSchema, terminalLine, terminalSafe } from "@venom/proto";
import { type CliApp, connectCli, Exit, type VenomClient, type VenomHome } from "@venom/runtime/cli";
import type { z } from "zod";
import { muxMain } from "./adapters.js";
import type { InboxEvent, InboxQuestion } from "./inbox.js";

// `venom-orch inbox` on a terminal (docs/venom-orch.md, "The inbox"): the
// waiting questions, newest first, live as they are asked and settled
// anywhere. Everything shown comes from a daemon and, through it, from an
// agent: escaped on one line, cut to the terminal's width.

/** The keys, as data: what each does is said once, in the help line and in the handler table below. */
const KEYS = [
  ["y", "approve"],
  ["n", "deny"],
  ["d", "later"],
  ["Enter", "details"],
  ["a", "attach"],
  ["q", "quit"],
] as const;

const CSI = "\x1b[";
const ENTER_SCREEN = `${CSI}?1049h${CSI}?25l${CSI}?7l`;
const LEAVE_SCREEN = `${CSI}?7h${CSI}?25h${CSI}?1049l`;
const AGE_REFRESH_MS = 1000;

type Details = z.infer<typeof InboxDetailsResultSchema>;

export class InboxScreen {
  #client: VenomClient | undefined;
  #questions: InboxQuestion[] = [];
  /** Questions put off with `d`: listed after the others. */
  readonly #later = new Set<string>();
  #selected = 0;
  #message = "";
  #details: Details | null = null;
  #paused = false;
  #done: (code: number) => void = () => undefined;

  constructor(
    private readonly app: CliApp,
    private readonly home: VenomHome,
  ) {}

  async run(): Promise<number> {
    this.#client = await connectCli(this.app, this.home, {
      onEvent: (method, params) => this.#onEvent(method, params),
      onClose: () => this.#quit("venom-orch closed the connection", Exit.failed),
    });
    const client = this.#client;
    try {
      this.#questions = (await client.request("inbox/list", { watch: true })).questions;
      const finished = new Promise<number>((resolve) => {
        this.#done = resolve;
      });
      this.#enter();
      const ages = setInterval(() => this.#draw(), AGE_REFRESH_MS);
      const code = await finished;
      clearInterval(ages);
      return code;
    } finally {
      client.close();
    }
  }

  #onEvent(method: string, params: unknown): void {
    if (method !== "event/inbox") return;
    const event = params as InboxEvent;
    if (event.kind === "asked" && event.question) this.#questions.unshift(event.question);
    if (event.kind === "settled" && event.question) {
      const id = event.question.id;
      this.#questions = this.#questions.filter((q) => q.id !== id);
      this.#later.delete(id);
      if (this.#details?.question.id === id) {
        this.#details = null;
        this.#message = `${event.question.name} ${event.question.tool}: ${event.decision} (${event.by})`;
      }
    }
    this.#draw();
  }

  /** Newest first; those put off last. */
  #shown(): InboxQuestion[] {
    return [...this.#questions.filter((q) => !this.#later.has(q.id)), ...this.#questions.filter((q) => this.#later.has(q.id))];
  }

  #enter(): void {
    process.stdout.write(ENTER_SCREEN);
    process.stdin.setRawMode(true);
    process.stdin.resume();
    process.stdin.on("data", this.#onKey);
    process.on("SIGWINCH", this.#onResize);
    this.#draw();
  }

  #leave(): void {
    process.stdin.off("data", this.#onKey);
    process.off("SIGWINCH", this.#onResize);
    process.stdin.setRawMode(false);
    process.stdin.pause();
    process.stdout.write(LEAVE_SCREEN);
  }

  readonly #onResize = () => this.#draw();

  #quit(message: string, code: number): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#leave();
    if (message) process.stderr.write(`${this.app.program}: ${message}\n`);
    this.#done(code);
  }

  readonly #onKey = (data: Buffer) => {
    const key = data.toString("utf8");
    void this.#handle(key).catch((error: Error) => {
      this.#message = terminalLine(error.message, 300);
      this.#draw();
    });
  };

  async #handle(key: string): Promise<void> {
    if (this.#paused) return;
    if (this.#details) {
      this.#details = null;
      this.#draw();
      return;
    }
    const shown = this.#shown();
    const current = shown[this.#selected];
    this.#message = "";
    switch (key) {
      case "q":
      case "\x03":
        this.#quit("", Exit.ok);
        return;
      case "j":
      case `${CSI}B`:
        this.#selected = Math.min(this.#selected + 1, Math.max(0, shown.length - 1));
        break;
      case "k":
      case `${CSI}A`:
        this.#selected = Math.max(0, this.#selected - 1);
        break;
      case "y":
      case "n":
        if (current) await this.#answer(current, key === "y" ? "approve" : "deny");
        break;
      case "d":
        if (current) {
          this.#later.add(current.id);
          this.#message = `${current.name} ${current.tool}: left for later`;
        }
        break;
      case "\r":
        if (current) this.#details = (await this.#client?.request("inbox/details", { id: current.id })) as Details;
        break;
      case "a":
        if (current) await this.#attach(current);
        break;
    }
    this.#draw();
  }

  async #answer(question: InboxQuestion, decision: "approve" | "deny"): Promise<void> {
    await this.#client?.request("inbox/answer", { id: question.id, decision });
    this.#message = `${decision === "approve" ? "approved" : "denied"}: ${question.name} ${question.tool}`;
  }

  /** venom-mux's own attach on the job's pane, this screen put away meanwhile (C-b d comes back). */
  async #attach(question: InboxQuestion): Promise<void> {
    this.#paused = true;
    this.#leave();
    const child = spawn(process.execPath, [muxMain(), "attach", "--exit-with-pane", "-t", question.name], { stdio: "inherit" });
    await new Promise((resolve) => child.once("exit", resolve));
    this.#paused = false;
    this.#enter();
  }

  #draw(): void {
    if (this.#paused) return;
    const cols = process.stdout.columns || 80;
    const rows = process.stdout.rows || 24;
    const lines = this.#details ? detailLines(this.#details, cols) : this.#listLines(cols, rows - 2);
    const help = this.#details ? "any key: back" : KEYS.map(([k, what]) => `${k} ${what}`).join("  ");
    const status = this.#message || help;
    let out = `${CSI}H${CSI}2J`;
    lines.slice(0, rows - 1).forEach((line, i) => {
      out += `${CSI}${i + 1};1H${line}`;
    });
    out += `${CSI}${rows};1H${CSI}7m${terminalLine(status, cols).padEnd(cols)}${CSI}0m`;
    process.stdout.write(out);
  }

  #listLines(cols: number, room: number): string[] {
    const shown = this.#shown();
    this.#selected = Math.min(this.#selected, Math.max(0, shown.length - 1));
    const head = `${CSI}1mvenom-orch inbox: ${shown.length} waiting${CSI}0m`;
    if (shown.length === 0) return [head, "", "  nothing waits for you"];
    // Scrolled so the selection stays in view.
    const first = Math.max(0, this.#selected - room + 2);
    return [
      head,
      ...shown.slice(first, first + room - 1).map((q, i) => {
        const later = this.#later.has(q.id) ? " (later)" : "";
        const text = terminalLine(
          `${q.name}  ${q.label}  ${q.tool} (${q.risk})  ${q.summary}${later}  ${age(q.askedAt)}`,
          Math.max(10, cols - 2),
        );
        return first + i === this.#selected ? `${CSI}7m> ${text}${CSI}0m` : `  ${text}`;
      }),
    ];
  }
}

/** The details view: the whole summary, the job's prompt, its pane's last lines and, for ACP, the tool call. */
function detailLines(details: Details, cols: number): string[] {
  const { question } = details;
  const block = (title: string, text: string) => [
    `${CSI}1m${title}${CSI}0m`,
    ...terminalSafe(text)
      .split("\n")
      .map((line) => `  ${terminalLine(line, cols - 2)}`),
  ];
  return [
    `${CSI}1m${terminalLine(`${question.name} ${question.label} ${question.tool} (${question.risk}), asked ${age(question.askedAt)} ago`, cols)}${CSI}0m`,
    ...block("Summary", question.summary),
    ...(details.acp
      ? block(
          "Tool call",
          `kind: ${details.acp.kind ?? "(none)"}\ntitle: ${details.acp.title ?? "(none)"}\nlocations: ${details.acp.locations.join(", ") || "(none)"}`,
        )
      : []),
    ...(details.worktree
      ? block(
          "Worktree",
          `${details.worktree.path} on ${details.worktree.branch}, from ${details.worktree.base.slice(0, 12)}\n${details.worktree.commits.join("\n")}\n${details.worktree.stat}${details.worktree.untracked.length > 0 ? `\nnew: ${details.worktree.untracked.join(", ")}` : ""}`,
        )
      : []),
    ...block("Prompt", details.prompt),
    ...block("Pane", details.paneTail || "(nothing shown)"),
  ];
}

function age(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds / 3600)}h`;
}
