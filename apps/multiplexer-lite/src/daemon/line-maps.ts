import type xterm from "@xterm/headless";

/**
 * Once a pane's scrollback is full, xterm makes room for each new line by
 * recycling the oldest one (`BufferLine.copyFrom`), and gives it two new
 * objects every time: its maps of combined characters and of extended
 * attributes, empty for plain text. The old ones had lived as long as the
 * line had, so each one dies in V8's old space: with 200 panes printing
 * 20,000 lines a second that was some 4.5 MB/s of garbage, and a collection
 * of the worker's whole heap (gigabytes of screen models) every minute, with
 * the daemon's RSS rising 10% between collections. Keeping a line's own empty
 * maps when the line it copies has empty ones too leaves the line as it
 * would be, and the new objects die young.
 *
 * This reaches into xterm (`_core`, BufferLine's fields), checked here: where
 * its shape is not the one expected, nothing is changed and `false` says so
 * (test/line-maps.test.ts holds the xterm venom-mux ships to it).
 */
interface LineMaps {
  _combined: object;
  _extendedAttrs: object;
  copyFrom(line: LineMaps): void;
}

let patched = false;

export function reuseEmptyLineMaps(terminal: xterm.Terminal): boolean {
  if (patched) return true;
  const line = (terminal as unknown as { _core?: { buffer?: { lines?: { get(i: number): unknown } } } })._core?.buffer?.lines?.get(0);
  if (!isLine(line)) return false;
  const prototype = Object.getPrototypeOf(line) as LineMaps;
  const copyFrom = prototype.copyFrom;
  prototype.copyFrom = function (this: LineMaps, source: LineMaps) {
    const { _combined, _extendedAttrs } = this;
    copyFrom.call(this, source);
    if (isEmpty(_combined) && isEmpty(this._combined)) this._combined = _combined;
    if (isEmpty(_extendedAttrs) && isEmpty(this._extendedAttrs)) this._extendedAttrs = _extendedAttrs;
  };
  patched = true;
  return true;
}

function isLine(value: unknown): value is LineMaps {
  if (typeof value !== "object" || value === null) return false;
  const line = value as Partial<LineMaps>;
  return typeof line.copyFrom === "function" && isPlainObject(line._combined) && isPlainObject(line._extendedAttrs);
}

const isPlainObject = (value: unknown): value is object =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;

function isEmpty(map: object): boolean {
  for (const _ in map) return false;
  return true;
}
