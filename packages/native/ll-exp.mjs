import * as n from "./dist/index.js";

const abi = n.landlockAbi();
const all = Object.values(n.LANDLOCK_FS)
  .filter((r) => r.abi <= abi)
  .reduce((a, r) => a | r.bit, 0n);
const fileRights = Object.values(n.LANDLOCK_FS)
  .filter((r) => r.abi <= abi && r.fileOnly)
  .reduce((a, r) => a | r.bit, 0n);
const rx = n.LANDLOCK_FS.EXECUTE.bit | n.LANDLOCK_FS.READ_FILE.bit | n.LANDLOCK_FS.READ_DIR.bit;
const fd = n.landlockCreateRuleset({ fs: all, net: 3n, scoped: 3n });
for (const p of ["/usr", "/etc", "/bin", "/lib", "/lib64"])
  try {
    n.landlockAllowPath(fd, p, rx);
  } catch (e) {
    console.error(p, e.message);
  }
if (process.env.PROC) n.landlockAllowPath(fd, "/proc", rx);
n.landlockAllowPath(fd, "/dev/null", fileRights);
n.setNoNewPrivs();
n.landlockRestrictSelf(fd);
n.execve(process.argv[2], process.argv.slice(2), { PATH: "/usr/bin:/bin", FOO: "x" });
