import { describe, expect, it } from "vitest";
import type { Program } from "../src/cli/command.js";
import { completions } from "../src/cli/completion.js";
import { VenomHome } from "../src/home.js";

// A program whose one command offers names as a daemon might: what an agent chose is among them.
const program: Program = {
  name: "venom-test",
  description: "",
  limits: [],
  commands: [
    {
      name: "attach",
      summary: "",
      usage: "",
      management: false,
      options: { target: { type: "string", short: "t" } },
      execute: async () => 0,
      complete: async () => ["work", "w$(touch x)", "w`id`", "w x", "w\u001b]0;t\u0007", "w;rm", "w'q", `w${"a".repeat(200)}`, "w%1"],
    },
  ],
};

describe("shell completion's candidates (cli/completion.ts)", () => {
  it("offers only plain words: a name with quotes, $, backticks, spaces, control characters or ; is never typed into the shell", async () => {
    const home = new VenomHome("/nonexistent-venom-home");
    expect(await completions(program, home, ["attach", "-t", "w"])).toEqual(["work", "w%1"]);
  });
});
