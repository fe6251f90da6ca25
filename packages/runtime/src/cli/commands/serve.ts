import { isAbsolute, resolve } from "node:path";
import type { CliApp } from "../app.js";
import { type Command, Exit } from "../program.js";

const SIGNAL_STOP_DEADLINE_MS = 15_000;

/** Run the daemon in the foreground on its socket, or as one stdio session. */
export function serveCommand(app: CliApp): Command {
  return {
    name: "serve",
    summary: "run the daemon in the foreground (--stdio: one session over stdin/stdout, no management)",
    usage: "serve [--workspace DIR] [--policy on-risk|always|never] [--stdio]",
    management: (values) => values.stdio !== true,
    options: { workspace: { type: "string" }, policy: { type: "string" }, stdio: { type: "boolean" } },
    async execute({ home, values }) {
      const policy = values.policy as string | undefined;
      if (policy !== undefined && !["on-risk", "always", "never"].includes(policy)) {
        throw new Error(`--policy must be on-risk, always or never`);
      }
      home.ensure();
      // Loaded here, not at start: the daemon's modules, and the configuration's zod schemas, which client commands do without.
      const { createDaemon, loadUserConfig, configSections } = await app.loadDaemon();
      const config = loadUserConfig(home.configFile, { sections: configSections, ...(policy ? { policy: policy as "on-risk" } : {}) });
      const dir = (values.workspace as string | undefined) ?? process.cwd();
      const daemon = createDaemon({ home, workspace: isAbsolute(dir) ? dir : resolve(dir), config });
      if (values.stdio) {
        await daemon.serveStdio(process.stdin, process.stdout);
        await daemon.stop();
        return Exit.ok;
      }
      await daemon.listen();
      // A signal always stops the daemon: if an orderly stop is still stuck after the deadline, the process exits anyway.
      const stop = () => {
        void daemon.stop();
        setTimeout(() => process.exit(1), SIGNAL_STOP_DEADLINE_MS).unref();
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
      await daemon.stopped;
      // Everything is closed and logged; a handle a library keeps open (a pty, a worker) must not hold the process.
      setTimeout(() => process.exit(), 100).unref();
      return Exit.ok;
    },
  };
}
