// Runs a Node program as if the kernel had no Landlock: a seccomp filter,
// inherited by everything the program starts, makes landlock_create_ruleset
// fail with ENOSYS, as on a kernel built without it. Usage: WITHOUT_LANDLOCK_SCRIPT=<script>
// node without-landlock.mjs [args…]: the script sees the same argv.slice(2); or
// WITHOUT_LANDLOCK_EXEC=<program> node without-landlock.mjs [args…]: the
// program is exec'd with argv [program, args…] (a sandbox launcher, C or Node).
import { createRequire } from "node:module";

const koffi = createRequire(createRequire(import.meta.url).resolve("@venom/native"))("koffi");
const libc = koffi.load("libc.so.6");
const SockFilter = koffi.struct({ code: "uint16_t", jt: "uint8_t", jf: "uint8_t", k: "uint32_t" });
const SockFprog = koffi.struct({ len: "uint16_t", filter: koffi.pointer(SockFilter) });
const prctl = libc.func("prctl", "int", ["int", "unsigned long", koffi.pointer(SockFprog), "unsigned long", "unsigned long"]);
const setNoNewPrivs = libc.func("prctl", "int", ["int", "unsigned long", "unsigned long", "unsigned long", "unsigned long"]);

const PR_SET_NO_NEW_PRIVS = 38;
const PR_SET_SECCOMP = 22;
const SECCOMP_MODE_FILTER = 2;
// landlock_create_ruleset is 444 on x86_64 and aarch64 alike.
const LANDLOCK_CREATE_RULESET = 444;
const ENOSYS = 38;
const filter = [
  { code: 0x20, jt: 0, jf: 0, k: 0 }, // load seccomp_data.nr
  { code: 0x15, jt: 0, jf: 1, k: LANDLOCK_CREATE_RULESET }, // == landlock_create_ruleset ?
  { code: 0x06, jt: 0, jf: 0, k: 0x00050000 | ENOSYS }, // return SECCOMP_RET_ERRNO | ENOSYS
  { code: 0x06, jt: 0, jf: 0, k: 0x7fff0000 }, // return SECCOMP_RET_ALLOW
];
if (setNoNewPrivs(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) throw new Error("prctl(PR_SET_NO_NEW_PRIVS) failed");
if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, { len: filter.length, filter }, 0, 0) !== 0) throw new Error("prctl(PR_SET_SECCOMP) failed");

const program = process.env.WITHOUT_LANDLOCK_EXEC;
if (program) {
  const { WITHOUT_LANDLOCK_EXEC: _, ...env } = process.env;
  const { execve } = await import("@venom/native");
  execve(program, [program, ...process.argv.slice(2)], env);
}
await import(new URL(process.env.WITHOUT_LANDLOCK_SCRIPT ?? "", `file://${process.cwd()}/`).href);
