import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderDocs } from "./docs.js";

/** Write docs/conformance.md at the repository root from the registry and the ledger. */
const target = fileURLToPath(new URL("../../docs/conformance.md", import.meta.url));
writeFileSync(target, renderDocs());
console.log(`wrote ${target}`);
