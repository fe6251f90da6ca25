import type { AppMethod } from "@venom/runtime";
import type { MuxContext } from "../context.js";
import type { PaneTable } from "../panes.js";
import { attachMethod, detachMethod } from "./attach.js";
import { captureMethod } from "./capture.js";
import { killMethod } from "./kill.js";
import { listMethod } from "./list.js";
import { newMethod } from "./new.js";
import { renameMethod } from "./rename.js";
import { repoDiffMethod, repoHeadMethod } from "./repo.js";
import { resizeMethod } from "./resize.js";
import { sendMethod } from "./send.js";
import { stdinMethod } from "./stdin.js";
import { waitMethod } from "./wait.js";

/** venom-mux's method table: one file per method, like tmux's commands. */
export function paneMethods(panes: PaneTable): Record<string, AppMethod<MuxContext>> {
  return {
    "pane/new": newMethod(panes),
    "pane/list": listMethod(panes),
    "pane/send": sendMethod(panes),
    "pane/resize": resizeMethod(panes),
    "pane/capture": captureMethod(panes),
    "pane/attach": attachMethod(panes),
    "pane/detach": detachMethod(panes),
    "pane/kill": killMethod(panes),
    "pane/wait": waitMethod(panes),
    "pane/rename": renameMethod(panes),
    "pane/stdin": stdinMethod(panes),
    "repo/head": repoHeadMethod(),
    "repo/diff": repoDiffMethod(),
  };
}
