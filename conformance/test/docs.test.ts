import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderDocs } from "../src/docs.js";
import { LEDGER } from "../src/ledger.js";
import { CHECKS } from "../src/registry.js";
import { normalize, sentencesOf, sourceText } from "./spec-sentences.js";

const ledger = LEDGER.flatMap(({ source, section, sentences }) => sentences.map(([text, answer]) => ({ source, section, text, answer })));

describe("docs/conformance.md and the requirement ledger", () => {
  it("the committed docs/conformance.md is what gen:docs writes", () => {
    const committed = readFileSync(join(import.meta.dirname, "../../docs/conformance.md"), "utf8");
    expect(committed).toBe(renderDocs());
  });

  it("the ledger holds every sentence of both source documents, in order, in its section", () => {
    const spec = [...sentencesOf("security-model"), ...sentencesOf("rfc-0008")];
    expect(ledger.map(({ source, section, text }) => ({ source, section, text }))).toEqual(spec);
  });

  it("every check id the ledger names exists, and every check is named by the sentence it quotes", () => {
    const ids = new Set(CHECKS.map((check) => check.id));
    const named = ledger.flatMap(({ answer }) => (Array.isArray(answer) ? answer : []));
    expect(named.filter((id) => !ids.has(id))).toEqual([]);
    for (const check of CHECKS.filter((c) => c.requirement.source !== "design")) {
      const entry = ledger.find((e) => e.text === check.requirement.text && e.section === check.requirement.section);
      expect(entry?.answer ?? [], `${check.id}: its requirement is not a sentence of ${check.requirement.section} that names it`).toContain(
        check.id,
      );
    }
  });

  it("every quote of every check is exact: a ledger sentence in its section, or a passage of the design (spec/design.md) under its heading", () => {
    const design = sourceText("design");
    for (const check of CHECKS) {
      for (const quote of [check.requirement, ...(check.also ?? [])]) {
        if (quote.source === "design") {
          const section = design.split(/^## /m).find((part) => part.startsWith(quote.section));
          expect(
            section && normalize(section).includes(quote.text),
            `${check.id}: not in spec/design.md, "${quote.section}": ${quote.text}`,
          ).toBe(true);
        } else {
          const found = ledger.some((e) => e.source === quote.source && e.section === quote.section && e.text === quote.text);
          expect(found, `${check.id}: not a sentence of ${quote.source}, "${quote.section}": ${quote.text}`).toBe(true);
        }
      }
    }
  });
});
