import { startModelProvider } from "@venom/testkit/model-provider";
import { describe, expect, it } from "vitest";

/** The data lines of a server-sent event stream, parsed (`[DONE]` kept as is). */
async function events(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return [...text.matchAll(/^data: (.*)$/gm)].map(([, data]) => (data === "[DONE]" ? data : JSON.parse(data as string)));
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer k" }, body: JSON.stringify(body) });

// The agent lane's model endpoint (agents-test/, `pnpm test:agents`) speaks three APIs; the lane's agents use the
// Anthropic and Responses ones, so Chat Completions is proven here, and the script's rules for all three.
describe("testkit's scripted model provider", () => {
  it("answers Chat Completions, streamed: the scripted tool call, then after its result the text; it records what it was sent", async () => {
    const provider = await startModelProvider();
    try {
      provider.script({ tool: "shell", input: { cmd: "ls" } }, { text: "listed" });
      const tools = [{ type: "function", function: { name: "shell", parameters: {} } }];
      const first = await events(await post(`${provider.url}/v1/chat/completions`, { model: "m", stream: true, tools, messages: [] }));
      expect(first.at(-1)).toBe("[DONE]");
      const call = (first[0] as any).choices[0].delta.tool_calls[0];
      expect(call.function).toEqual({ name: "shell", arguments: '{"cmd":"ls"}' });
      expect((first[1] as any).choices[0].finish_reason).toBe("tool_calls");
      const messages = [
        { role: "assistant", tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "a b" },
      ];
      const second = await events(await post(`${provider.url}/v1/chat/completions`, { model: "m", stream: true, tools, messages }));
      expect((second[0] as any).choices[0].delta.content).toBe("listed");
      expect(provider.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
        ["/v1/chat/completions", "Bearer k"],
        ["/v1/chat/completions", "Bearer k"],
      ]);
    } finally {
      await provider.close();
    }
  });

  it("a request that offers no tools gets short text; a scripted tool the request does not offer is said, not called; an unknown API is a 404", async () => {
    const provider = await startModelProvider();
    try {
      provider.script({ tool: "Write", input: {} });
      const untooled: any = await (await post(`${provider.url}/v1/messages`, { model: "m", messages: [] })).json();
      expect(untooled.content).toEqual([{ type: "text", text: "ok" }]);
      const tools = [{ name: "Read" }];
      const unoffered: any = await (await post(`${provider.url}/v1/messages`, { model: "m", tools, messages: [] })).json();
      expect(unoffered.content[0].text).toBe("the scripted tool Write is not offered (offered: Read)");
      const responses: any = await (
        await post(`${provider.url}/v1/responses`, { model: "m", tools: [{ name: "Write" }], input: [] })
      ).json();
      expect(responses.output[0]).toMatchObject({ type: "function_call", name: "Write", arguments: "{}" });
      expect((await post(`${provider.url}/v1/embeddings`, {})).status).toBe(404);
    } finally {
      await provider.close();
    }
  });
});
