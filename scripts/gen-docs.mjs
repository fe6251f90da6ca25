// Regenerate the docs that are derived from code: the protocol reference from
// proto's schemas. (Run after `pnpm build`.)
import { writeFileSync } from "node:fs";
import { protocolReference } from "@venom/proto";

writeFileSync(new URL("../docs/protocol.md", import.meta.url), protocolReference());
console.log("wrote docs/protocol.md");
