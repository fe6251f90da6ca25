import { ErrorCode, ProtocolError } from "@venom/proto";
import { encodeKey, type Key, type KeyModes, parseKey, pasteBytes } from "../../common/keys.js";
import type { PaneTable } from "../panes.js";
import { paneMethod } from "./define.js";

/**
 * Type into a pane: `data` as it is (or as a paste), then `keys` (tmux key
 * names encoded for the modes the program has set, or text), then Enter (a
 * carriage return, as a terminal sends it) when `enter`.
 */
export const sendMethod = (panes: PaneTable) =>
  paneMethod("pane/send", async (params, session) => {
    const pane = panes.resolve(params.target, session.state);
    const items = (params.keys ?? []).map((item, index) => ("text" in item ? item.text : keyNamed(item.key, index)));
    const needsModes = params.paste === true || items.some((item) => typeof item !== "string");
    // Asked of the model only when they matter: after everything the program printed so far.
    const modes = needsModes ? await pane.keyModes() : undefined;
    let data = modes && params.paste ? pasteBytes(params.data, modes) : params.data;
    for (const item of items) data += typeof item === "string" ? item : encodeKey(item, modes as KeyModes);
    if (params.enter) data += "\r";
    pane.write(data);
    return { bytes: Buffer.byteLength(data) };
  });

function keyNamed(name: string, index: number): Key {
  const key = parseKey(name);
  if (!key) {
    throw new ProtocolError(ErrorCode.InvalidParams, `invalid params: keys.${index}.key: unknown key name ${JSON.stringify(name)}`, {
      path: ["keys", index, "key"],
    });
  }
  return key;
}
