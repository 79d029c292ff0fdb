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
import type http from "node:http";
import { json as sendJson } from "@/lib/core/hooks/testing/fakes";
import { serveWhenRunDirectly, sseStream, startFakeModelApi, type FakeModelApi } from "./fake-model-api";

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
type Message = { role: string; content: string | { type: string; text?: string; content?: unknown }[] };

export type FakeAnthropic = FakeModelApi;

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
  const send = sseStream(res, { "cache-control": "no-cache" });
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

export function startFakeAnthropic(port = 0): Promise<FakeAnthropic> {
  return startFakeModelApi(
    "FAKE_ANTHROPIC_LOG",
    ({ method, path, body }, res) => {
      if (method === "POST" && path === "/v1/messages/count_tokens") return sendJson(res, 200, { input_tokens: 1000 });
      if (method === "POST" && path === "/v1/messages") {
        const model = typeof body.model === "string" ? body.model : "claude-fake";
        const blocks = scriptedAnswer(body as never);
        if (body.stream) return sse(res, model, blocks);
        const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
        return sendJson(res, 200, { id: `msg_fake_${++ids}`, type: "message", role: "assistant", model, content: blocks, stop_reason: stop, stop_sequence: null, usage: FAKE_USAGE });
      }
      sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `no ${path} here` } });
    },
    port,
  );
}

serveWhenRunDirectly(import.meta.url, startFakeAnthropic);
