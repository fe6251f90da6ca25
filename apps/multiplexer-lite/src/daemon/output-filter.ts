/**
 * What of a pane's output may reach a viewer's real terminal, as tmux decides
 * it: the program talks to the pane's screen model, not to the person's
 * terminal. Dropped:
 *  - queries and reports (DSR, DA, DECRQM, XTVERSION, DECREQTPARM, window
 *    operations CSI t, XTSMGRAPHICS, XTQMODKEYS): the model answers them
 *    (terminal-answers.ts); forwarded, the real terminal would answer too, and
 *    its answer would be typed into the pane as keys;
 *  - changes to how the real terminal encodes keys (kitty keyboard flags,
 *    modifyOtherKeys), which would garble what the person types;
 *  - every OSC but hyperlinks (8) and, only with `[mux] allow_clipboard = true`,
 *    clipboard writes (52): titles, colours, notifications, working directory;
 *  - every DCS, APC, PM and SOS string (DECRQSS, XTGETTCAP, graphics…);
 *  - DECID, DECRQTSR, DECRQPSR and DECRQCRA (more queries), and ESC % (a change
 *    of character encoding, which would make the terminal read what this
 *    filter does not).
 * 8-bit C1 controls are passed as their 7-bit equivalents, so the viewer's
 * terminal reads what the model read.
 */

const ESC = "\x1b";
/** A CSI longer than this is no sequence any terminal knows: it is dropped. */
const MAX_CSI = 256;
/** An OSC that is passed (a hyperlink, a clipboard write) is held until its end; past this size it is dropped instead. */
const MAX_KEPT_STRING = 128 * 1024;
/** Enough of an OSC to read its number. */
const MAX_OSC_NUMBER = 16;

type State = { kind: "ground" } | { kind: "discard"; osc: boolean };

/** Is this complete CSI sequence (ESC [ … final) one that must not reach a real terminal? */
function droppedCsi(sequence: string): boolean {
  const body = sequence.slice(2, -1);
  const final = sequence.at(-1) as string;
  const prefix = /^[<=>?]/.test(body) ? (body[0] as string) : "";
  const intermediates = /[ -/]*$/.exec(body)?.[0] ?? "";
  switch (final) {
    case "n": // DSR, DECXCPR, XTQMODKEYS-style reports
    case "c": // DA1, DA2, DA3
    case "t": // window operations and reports
      return true;
    case "p":
      return intermediates.includes("$"); // DECRQM
    case "q":
      return prefix === ">"; // XTVERSION
    case "x":
      return prefix === "" && intermediates === ""; // DECREQTPARM
    case "S":
      return prefix === "?"; // XTSMGRAPHICS
    case "m":
      return prefix === ">" || prefix === "?"; // XTMODKEYS, XTQMODKEYS
    case "u":
      return prefix !== "" || intermediates === "$"; // kitty keyboard protocol: push, pop, set, query; DECRQTSR
    case "w":
      return intermediates === "$"; // DECRQPSR
    case "y":
      return intermediates === "*"; // DECRQCRA
    default:
      return false;
  }
}

/** Normalise 8-bit C1 controls (U+0080–U+009F) to ESC + their 7-bit final. */
function sevenBit(text: string): string {
  return /[\u0080-\u009f]/.test(text) ? text.replace(/[\u0080-\u009f]/g, (c) => ESC + String.fromCharCode(c.charCodeAt(0) - 0x40)) : text;
}

export class OutputFilter {
  #state: State = { kind: "ground" };
  /** The start of a sequence cut by the end of a chunk, held until the next one says what it is. */
  #held = "";

  constructor(private readonly allowClipboard: boolean) {}

  feed(data: string): string {
    const text = this.#held + sevenBit(data);
    this.#held = "";
    if (this.#state.kind === "ground" && !text.includes(ESC)) return text;
    let out = "";
    let at = 0;
    while (at < text.length) {
      if (this.#state.kind === "discard") {
        const end = stringEnd(text, at, this.#state.osc);
        if (end === -1) {
          // An ESC at the very end may be the start of the ST that ends the string.
          if (text.endsWith(ESC)) this.#held = ESC;
          return out;
        }
        this.#state = { kind: "ground" };
        at = end;
        continue;
      }
      const esc = text.indexOf(ESC, at);
      if (esc === -1) return out + text.slice(at);
      out += text.slice(at, esc);
      const step = this.#sequence(text, esc);
      if (step === undefined) {
        this.#held = text.slice(esc);
        return out;
      }
      out += step.keep;
      at = step.next;
    }
    return out;
  }

  /** The sequence at `esc`: what of it to keep and where the text after it starts; undefined when it is cut off. */
  #sequence(text: string, esc: number): { keep: string; next: number } | undefined {
    const kind = text[esc + 1];
    if (kind === undefined) return undefined;
    if (kind === "[") return csi(text, esc);
    if (kind === "]") return this.#osc(text, esc);
    if (kind === "P" || kind === "X" || kind === "^" || kind === "_") {
      this.#state = { kind: "discard", osc: false };
      return { keep: "", next: esc + 2 };
    }
    // DECID, a query; and a change of character encoding (ESC % @ leaves UTF-8), after which the viewer's
    // terminal would read bytes (an 8-bit OSC) that this filter, reading UTF-8, never sees as a sequence.
    if (kind === "Z") return { keep: "", next: esc + 2 };
    if (kind === "%") return text.length > esc + 2 ? { keep: "", next: esc + 3 } : undefined;
    // Any other escape passes; what follows the ESC is scanned as text.
    return { keep: ESC, next: esc + 1 };
  }

  #osc(text: string, esc: number): { keep: string; next: number } | undefined {
    const digits = /^\d*/.exec(text.slice(esc + 2, esc + 2 + MAX_OSC_NUMBER))?.[0] ?? "";
    // Only once what follows the number is known (or the number is too long to be one) is the OSC's fate decided.
    if (esc + 2 + digits.length >= text.length && digits.length < MAX_OSC_NUMBER) return undefined;
    const ident = Number(digits);
    const kept = text[esc + 2 + digits.length] === ";" && (ident === 8 || (ident === 52 && this.allowClipboard));
    if (!kept) {
      this.#state = { kind: "discard", osc: true };
      return { keep: "", next: esc + 2 };
    }
    const end = stringEnd(text, esc + 2, true);
    if (end === -1) {
      if (text.length - esc <= MAX_KEPT_STRING) return undefined;
      this.#state = { kind: "discard", osc: true };
      return { keep: "", next: text.length };
    }
    return { keep: text.slice(esc, end), next: end };
  }
}

/** A CSI sequence at `esc`: passed or dropped whole; undefined when it is cut off. */
function csi(text: string, esc: number): { keep: string; next: number } | undefined {
  for (let i = esc + 2; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x40 && code <= 0x7e) {
      const sequence = text.slice(esc, i + 1);
      return { keep: droppedCsi(sequence) ? "" : sequence, next: i + 1 };
    }
    // A control or anything outside CSI's bytes ends it malformed, as a terminal would cancel it: drop what came so far.
    if (code < 0x20 || code > 0x7e || i - esc > MAX_CSI) return { keep: "", next: i };
  }
  return text.length - esc > MAX_CSI ? { keep: "", next: text.length } : undefined;
}

/**
 * Where a string sequence (OSC, DCS…) whose body starts at or before `from`
 * ends: after ST (ESC \), after BEL for an OSC, at CAN/SUB, or before an ESC
 * that starts something else (which cancels the string). -1 when it goes on.
 */
function stringEnd(text: string, from: number, osc: boolean): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "\x07" && osc) return i + 1;
    if (c === "\x18" || c === "\x1a") return i + 1;
    if (c === ESC) {
      if (i + 1 >= text.length) return -1;
      return text[i + 1] === "\\" ? i + 2 : i;
    }
  }
  return -1;
}
