/**
 * `send`, at most `perSecond` lines a second; the lines between are
 * counted, and the count sent with the next line or on its own once the second
 * is over (or at `flush`). Unthrottled, an agent's flood of tool calls reached
 * the person faster than a terminal takes it, until the daemon cut the
 * person's connection off as a reader that stopped reading.
 */
export function throttled(send: (line: string) => void, perSecond: number): { line(line: string): void; flush(): void } {
  let second = 0;
  let sent = 0;
  let skipped = 0;
  let timer: NodeJS.Timeout | undefined;
  const counted = () => `(${skipped} more tool calls not shown)`;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (skipped > 0) send(counted());
    skipped = 0;
  };
  return {
    line(line) {
      const now = Date.now();
      if (Math.floor(now / 1000) !== second) {
        second = Math.floor(now / 1000);
        sent = 0;
      }
      if (sent >= perSecond) {
        skipped++;
        timer ??= setTimeout(flush, 1000 - (now % 1000));
        return;
      }
      sent++;
      send(skipped > 0 ? `${counted()} ${line}` : line);
      skipped = 0;
    },
    flush,
  };
}
