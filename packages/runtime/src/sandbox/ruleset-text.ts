import { fileRights, type RulesetPlan } from "./plan.js";

// How a launcher receives what to enforce: the planned rulesets as text in
// VENOM_SANDBOX_RULESET, one item a line, read alike by the C launcher
// (packages/native/launcher/venom-sandbox.c) and the Node one (launcher.ts):
//   layer <abi> <handled fs> <handled net> <scoped> <rights allowed on a file>
//   <allowed access> <path, percent-encoded>
// numbers in decimal; the rules after a layer line are that layer's. Each
// layer is one Landlock domain stacked on the one before. The plan is made
// here, once (plan.ts); a launcher only applies it.

/** How the launcher receives the ruleset and the program's environment. */
export const RULESET_VAR = "VENOM_SANDBOX_RULESET";
export const ENV_PREFIX = "VENOM_SANDBOX_ENV_";

/** One layer as the launcher applies it. */
export interface RulesetLayer {
  abi: number;
  handled: RulesetPlan["handled"];
  /** Rights a rule keeps when its path is a file: the kernel refuses directory-only rights there. */
  fileRights: bigint;
  rules: RulesetPlan["rules"];
}

export function encodeRuleset(layers: readonly RulesetPlan[]): string {
  return layers
    .flatMap(({ abi, handled, rules }) => [
      `layer ${abi} ${handled.fs} ${handled.net} ${handled.scoped} ${fileRights(abi)}`,
      // encodeURIComponent leaves no space, newline or '%' unescaped, so a path cannot break the line.
      ...rules.map((rule) => `${rule.access} ${encodeURIComponent(rule.path)}`),
    ])
    .join("\n");
}

/** The layers of an encoded ruleset; throws a TypeError naming the first malformed line. */
export function decodeRuleset(text: string): RulesetLayer[] {
  const layers: RulesetLayer[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const malformed = () => new TypeError(`malformed ruleset line: ${JSON.stringify(line)}`);
    const numbers = (values: string[]) =>
      values.map((value) => {
        if (!/^\d+$/.test(value)) throw malformed();
        return BigInt(value);
      });
    if (fields[0] === "layer") {
      if (fields.length !== 6) throw malformed();
      const [abi, fs, net, scoped, file] = numbers(fields.slice(1)) as [bigint, bigint, bigint, bigint, bigint];
      layers.push({ abi: Number(abi), handled: { fs, net, scoped }, fileRights: file, rules: [] });
      continue;
    }
    const layer = layers.at(-1);
    if (!layer || fields.length !== 2) throw malformed();
    const [access] = numbers(fields.slice(0, 1)) as [bigint];
    layer.rules.push({ access, path: decodeURIComponent(fields[1] as string) });
  }
  if (layers.length === 0) throw new TypeError("malformed ruleset: no layer");
  return layers;
}
