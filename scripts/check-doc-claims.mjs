// Every claim in docs/ names the test that proves it (`path/x.test.ts` › "title…"). This keeps those names true:
// each named test file exists, and each quoted title (up to its "…") is the start of a test's title in a file of that
// name. A renamed or deleted test fails `pnpm lint` here instead of leaving a claim that no test proves.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const docs = join(root, "docs");

/** Every *.test.ts of the repo, outside node_modules and dist. */
function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * The titles of a test file, each as its literal pieces: the string literal after it( / describe( / it.each(…)(
 * or name:, split where a template's ${…} or a %s of .each/.for stands for any text.
 */
function titles(source) {
  const found = [];
  // A table of cases titles its tests by a `name:` of each case (it(scenario.name, …)).
  for (const match of source.matchAll(/(?:\b(?:it|test|describe)(?:\.\w+)*(?:\([^()]*\))?\(|\bname:)\s*(["'`])((?:\\.|(?!\1).)*)\1/gs)) {
    found.push(match[2].replace(/\\(.)/g, "$1").split(/\$\{[^}]*\}|%[sdi]/));
  }
  return found;
}

/** Is `text` the start of a title of these pieces (any text standing between two pieces)? */
function startsTitle(text, pieces) {
  const [first, ...rest] = pieces;
  if (text.length <= first.length) return first.startsWith(text);
  if (!text.startsWith(first) || rest.length === 0) return false;
  const after = text.slice(first.length);
  for (let skip = 0; skip <= after.length; skip++) if (startsTitle(after.slice(skip), rest)) return true;
  return false;
}

/** A quote from the docs names this title: its start begins the title, and each later piece ("…" marks a cut) follows in it. */
function names(quote, pieces) {
  const [start, ...later] = quote.split("…").map((piece) => piece.trim());
  if (!startsTitle(start, pieces)) return false;
  const whole = pieces.join("");
  let at = 0;
  for (const piece of later.filter(Boolean)) {
    at = whole.indexOf(piece, at);
    if (at === -1) return false;
  }
  return true;
}

const byName = new Map();
for (const path of testFiles(root)) {
  const name = basename(path);
  byName.set(name, [...(byName.get(name) ?? []), { path: relative(root, path), titles: titles(readFileSync(path, "utf8")) }]);
}

// A claim cell: a `file.test.ts` name, then optionally › and one or more quoted titles separated by commas.
const CLAIM = /`([\w./-]+\.test\.ts)`(?:\s*›\s*((?:"(?:\\.|[^"\\])*"(?:,\s*|\s+and\s+)?)+))?/g;
const problems = [];
for (const doc of readdirSync(docs).filter((name) => name.endsWith(".md"))) {
  const text = readFileSync(join(docs, doc), "utf8");
  for (const match of text.matchAll(CLAIM)) {
    const [, file, quoted] = match;
    const candidates = (byName.get(basename(file)) ?? []).filter(
      (f) => f.path === file || f.path.endsWith(`/${file}`) || !file.includes("/"),
    );
    if (candidates.length === 0) {
      problems.push(`docs/${doc}: names ${file}, which does not exist`);
      continue;
    }
    for (const [, written] of (quoted ?? "").matchAll(/"((?:\\.|[^"\\])*)"/g)) {
      // A wrapped doc may break a quoted title across lines (packages/proto/src/markdown-wrap.ts).
      const title = written.replace(/\\"/g, '"').replace(/\s+/g, " ");
      if (!candidates.some((f) => f.titles.some((pieces) => names(title, pieces)))) {
        problems.push(`docs/${doc}: no test in ${candidates.map((f) => f.path).join(" or ")} is titled "${title}"`);
      }
    }
  }
}
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
