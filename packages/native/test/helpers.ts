import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A fresh temp directory, removed by the returned cleanup. */
export function makeTempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `venom-native-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves with the child's exit code and signal once it has exited and been reaped. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** Kills a child that may still be running and waits until it is reaped. */
export async function killAndReap(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGKILL");
  await exited(child);
}

/** The pid a pidfd refers to, as the kernel reports it in fdinfo. */
export function pidOfPidfd(pidfd: number): number {
  const match = /^Pid:\s+(-?\d+)$/m.exec(readFileSync(`/proc/self/fdinfo/${pidfd}`, "utf8"));
  if (!match?.[1]) throw new Error(`fd ${pidfd} is not a pidfd`);
  return Number(match[1]);
}

/** Open-file flags of one of our fds, from /proc/self/fdinfo (octal there). */
export function fdFlags(fd: number): number {
  const match = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
  if (!match?.[1]) throw new Error(`no flags for fd ${fd}`);
  return Number.parseInt(match[1], 8);
}

const packageDir = fileURLToPath(new URL("..", import.meta.url));

/**
 * URL of the built package entry, for tests that must run the bindings in a
 * separate plain `node` process (which cannot load the TypeScript sources).
 * Rebuilds dist/ first if any source file is newer than its output, so the
 * child never exercises stale code.
 */
export function builtEntryUrl(): string {
  const srcDir = join(packageDir, "src");
  const stale = readdirSync(srcDir)
    .filter((name) => name.endsWith(".ts"))
    .some((name) => {
      const output = join(packageDir, "dist", name.replace(/\.ts$/, ".js"));
      return !existsSync(output) || statSync(output).mtimeMs < statSync(join(srcDir, name)).mtimeMs;
    });
  if (stale) {
    const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: packageDir, stdio: "inherit" });
  }
  return pathToFileURL(join(packageDir, "dist", "index.js")).href;
}
