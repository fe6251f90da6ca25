// The Venom daemons running on this machine (a `serve` of venom-echo, venom-mux,
// venom-orch or an example app in examples/, however started: `venom-X start`, testkit, venom-orch starting
// venom-mux), found in /proc. `.ci/run` uses it around `pnpm test`:
//   node scripts/venom-daemons.mjs --save FILE        before: who runs already
//   node scripts/venom-daemons.mjs --left-since FILE  after: fails naming each daemon
//                                                     started since that still runs
// A daemon is named by pid and start time, so one that ran before the tests
// never counts, even if its pid was reused. One still stopping gets a few
// seconds to finish.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

const MAIN = /\/(?:apps\/[^/]+|examples\/[^/]+)\/dist\/main\.c?js$|(?:^|\/)venom-(?:echo|mux|orch)$/;
const STOPPING_GRACE_MS = 10_000;

/** Every daemon running now: pid, start time (field 22 of /proc/PID/stat) and its command line. */
function daemons() {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").slice(0, -1);
      if (!MAIN.test(argv[1] ?? "") || argv[2] !== "serve") continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
      found.push({ id: `${entry}@${startTime}`, pid: Number(entry), argv });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

const [flag, file] = process.argv.slice(2);
if (flag === "--save" && file) {
  writeFileSync(file, JSON.stringify(daemons().map((daemon) => daemon.id)));
} else if (flag === "--left-since" && file) {
  const before = new Set(JSON.parse(readFileSync(file, "utf8")));
  const started = () => daemons().filter((daemon) => !before.has(daemon.id));
  for (const deadline = Date.now() + STOPPING_GRACE_MS; started().length > 0 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const left = started();
  for (const daemon of left) console.error(`left running: pid ${daemon.pid}: ${JSON.stringify(daemon.argv.slice(1))}`);
  if (left.length > 0) {
    console.error(`${left.length} Venom daemon(s) the tests started are still running: a test that starts one must stop it`);
    process.exit(1);
  }
} else {
  console.error("usage: venom-daemons.mjs --save FILE | --left-since FILE");
  process.exit(2);
}
