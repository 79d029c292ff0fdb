/**
 * Test support: a local stand-in for Anthropic's Messages API, enough for the real Claude Code CLI
 * (ANTHROPIC_BASE_URL pointing here) to run a scripted session: the newest prompt of a
 * conversation picks a tool call, and once a tool result is back the model says it is done.
 *
 * The prompt's keywords: "subagent" → the Agent (or Task) tool, whose subagent then gets the prompt
 * "run bash: ls"; "write FILE" → Write; "fail" → Bash `exit 3`; "bash: CMD" or "rm" → Bash;
 * "read FILE" → Read; anything else → a plain text answer. Streaming (SSE) and plain JSON answers,
 * and count_tokens; every request is kept for the test to read.
 */
import { appendFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
type Message = { role: string; content: string | { type: string; text?: string; content?: unknown }[] };

export interface FakeAnthropic {
  url: string;
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export const FAKE_USAGE = { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 300, cache_creation_input_tokens: 0 };

function lastUserText(messages: Message[]): { text: string; afterTool: boolean } {
  // Claude Code may put role "system" notes after the user's turn; the newest user message counts.
  const last = [...messages].reverse().find((m) => m.role === "user");
  const blocks = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : (last?.content ?? []);
  const afterTool = blocks.some((b) => b.type === "tool_result");
  // The prompt is the last text block: Claude Code puts its reminders (CLAUDE.md, dates) before it.
  const texts = blocks.filter((b) => b.type === "text" && typeof b.text === "string" && !b.text.trimStart().startsWith("<"));
  const text = texts.length > 0 ? texts[texts.length - 1].text! : "";
  return { text, afterTool };
}

let ids = 0;
const toolUse = (name: string, input: Record<string, unknown>): Block => ({ type: "tool_use", id: `toolu_fake_${Date.now().toString(36)}_${++ids}`, name, input });

/** What the scripted model answers to this request. */
export function scriptedAnswer(body: { messages?: Message[]; tools?: { name: string }[] }): Block[] {
  const messages = body.messages ?? [];
  const { text, afterTool } = lastUserText(messages);
  if (afterTool) return [{ type: "text", text: "Done." }];
  const tools = new Set((body.tools ?? []).map((t) => t.name));
  const lower = text.toLowerCase();
  let m: RegExpMatchArray | null;
  if (lower.includes("subagent")) {
    const name = tools.has("Agent") ? "Agent" : "Task";
    if (tools.has(name)) return [toolUse(name, { subagent_type: "general-purpose", description: "List files", prompt: "run bash: ls" })];
  }
  if ((m = text.match(/write (\S+)/i))) return [toolUse("Write", { file_path: m[1], content: "written by the fake model\n" })];
  if (lower.includes("fail")) return [toolUse("Bash", { command: "exit 3", description: "Fail on purpose" })];
  if ((m = text.match(/bash: (.+)$/im))) return [toolUse("Bash", { command: m[1].trim(), description: "Run a command" })];
  if ((m = text.match(/read (\S+)/i))) return [toolUse("Read", { file_path: m[1] })];
  return [{ type: "text", text: "Nothing to do." }];
}

function sse(res: http.ServerResponse, model: string, blocks: Block[]) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const { output_tokens, ...startUsage } = FAKE_USAGE;
  send("message_start", {
    type: "message_start",
    message: { id: `msg_fake_${++ids}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...startUsage, output_tokens: 1 } },
  });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
    } else {
      send("content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } });
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    send("content_block_stop", { type: "content_block_stop", index });
  });
  const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  send("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens } });
  send("message_stop", { type: "message_stop" });
  res.end();
}

export async function startFakeAnthropic(port = 0): Promise<FakeAnthropic> {
  const requests: FakeAnthropic["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        /* not JSON: answered below like any unknown request */
      }
      requests.push({ path, body });
      if (process.env.FAKE_ANTHROPIC_LOG) appendFileSync(process.env.FAKE_ANTHROPIC_LOG, `${JSON.stringify({ path, body })}\n`);
      if (req.method === "POST" && path === "/v1/messages/count_tokens") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 1000 }));
        return;
      }
      if (req.method === "POST" && path === "/v1/messages") {
        const model = typeof body.model === "string" ? body.model : "claude-fake";
        const blocks = scriptedAnswer(body as never);
        if (body.stream) return sse(res, model, blocks);
        const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: `msg_fake_${++ids}`, type: "message", role: "assistant", model, content: blocks, stop_reason: stop, stop_sequence: null, usage: FAKE_USAGE }));
        return;
      }
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no ${path} here` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// `tsx lib/bridge/testing/fake-anthropic-api.ts [port]`: serve until killed (capturing fixtures by hand).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  void startFakeAnthropic(Number(process.argv[2] ?? 0)).then((fake) => console.log(fake.url));
}
