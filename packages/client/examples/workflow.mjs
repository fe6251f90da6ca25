// An orchestrator's workflow over one connection to venom-mux: a named pane in a subdirectory, wait for the agent's
// prompt, paste a multi-line task, wait until it goes quiet, read the last lines, end it and read its exit code.
//   node workflow.mjs --cwd sub --prompt '^agent>' --task "$(cat task.txt)" -- my-agent --flag
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Panes } from "@venom/client";

const { values, positionals: argv } = parseArgs({
  options: { cwd: { type: "string", default: "." }, prompt: { type: "string" }, task: { type: "string" } },
  allowPositionals: true,
});
const panes = await Panes.connect(); // the venom-mux of $VENOM_HOME, else ~/.venom
try {
  const pane = await panes.newPane({ name: "worker", cwd: resolve(values.cwd), cols: 100, rows: 30, argv });
  await panes.wait(pane.id, { for: new RegExp(values.prompt, "m"), timeoutSeconds: 60 });
  await panes.paste(pane.id, values.task);
  await panes.wait(pane.id, { quietMs: 300 });
  for (const line of await panes.lastLines(pane.id, 10)) console.log(line);
  await panes.send(pane.id, "/exit 3", "Enter");
  console.log(`exit code: ${await panes.exitCode(pane.id, 10)}`);
  await panes.kill(pane.id);
} finally {
  panes.close();
}
