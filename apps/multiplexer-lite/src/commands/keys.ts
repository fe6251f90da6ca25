/** tmux key names that `send` turns into the bytes a terminal sends. */
const NAMED: Record<string, string> = {
  Enter: "\r",
  Escape: "\x1b",
  Tab: "\t",
  BSpace: "\x7f",
  Space: " ",
  Up: "\x1b[A",
  Down: "\x1b[B",
  Right: "\x1b[C",
  Left: "\x1b[D",
  Home: "\x1b[H",
  End: "\x1b[F",
  PageUp: "\x1b[5~",
  PageDown: "\x1b[6~",
  DC: "\x1b[3~",
};

/** One argument of `send`: a key name (Enter, C-c, M-x, Up…) or literal text. */
export function keyBytes(arg: string): string {
  const named = NAMED[arg];
  if (named !== undefined) return named;
  const ctrl = /^C-([a-z@[\\\]^_?])$/i.exec(arg);
  if (ctrl) {
    const c = (ctrl[1] as string).toUpperCase();
    return c === "?" ? "\x7f" : String.fromCharCode(c.charCodeAt(0) & 0x1f);
  }
  const meta = /^M-(.)$/.exec(arg);
  if (meta) return `\x1b${meta[1]}`;
  return arg;
}
