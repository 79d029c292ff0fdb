/**
 * Test support: a local stand-in for OpenAI's Chat Completions API (`/chat/completions`, streamed
 * or not, and `/models`), enough for a CLI that speaks it, such as Qwen Code (OPENAI_BASE_URL
 * pointing here), to run a scripted session. The newest user text picks a call: "write FILE" → the
 * client's file-writing tool, "bash: CMD" or "fail" → its shell tool; once a tool's result is back
 * the model says it is done. The tool names are the client's own, read from the request's `tools`.
 */
import type http from "node:http";
import { json as sendJson } from "@/lib/core/hooks/testing/fakes";
import { serveWhenRunDirectly, startFakeModelApi, type FakeModelApi } from "./fake-model-api";

type Message = { role?: string; content?: unknown; tool_calls?: unknown[] };
type Tool = { type?: string; function?: { name?: string } };

export type FakeOpenAiChat = FakeModelApi;

export const FAKE_CHAT_USAGE = { prompt_tokens: 800, completion_tokens: 30, total_tokens: 830, prompt_tokens_details: { cached_tokens: 100 } };

/** The shell and file-writing tools as the client names them (Qwen Code: run_shell_command, write_file; Factory's droid: Execute, Create). */
const SHELL_TOOLS = ["run_shell_command", "Execute", "shell", "bash", "Bash", "execute_command"];
const WRITE_TOOLS = ["write_file", "Create", "Write", "create_file"];

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("\n");
}

export function scriptedChatAnswer(body: { messages?: Message[]; tools?: Tool[] }): { text?: string; call?: { name: string; arguments: string } } {
  const messages = body.messages ?? [];
  if (messages[messages.length - 1]?.role === "tool") return { text: "Done." };
  const user = [...messages].reverse().find((m) => m.role === "user" && textOf(m.content).trim() !== "");
  // The scripted line, wherever a client's or a hook's context put it beside the prompt; only a
  // line that starts with it, so the client's own side requests (memory, titles) script nothing.
  const lines = textOf(user?.content).split("\n").map((l) => l.trim());
  const prompt = [...lines].reverse().find((l) => /^(bash: |fail\b|write \S+$)/i.test(l)) ?? "";
  const names = new Set((body.tools ?? []).map((t) => t.function?.name ?? ""));
  const shell = SHELL_TOOLS.find((n) => names.has(n));
  const write = WRITE_TOOLS.find((n) => names.has(n));
  const call = (name: string | undefined, args: Record<string, unknown>) => (name ? { call: { name, arguments: JSON.stringify(args) } } : { text: "I have no such tool." });
  let m: RegExpMatchArray | null;
  if ((m = prompt.match(/^bash: (.+)$/i))) return call(shell, { command: m[1].trim(), description: "Run a command", is_background: false });
  if (/^fail\b/i.test(prompt)) return call(shell, { command: "exit 3", description: "Fail on purpose", is_background: false });
  if ((m = prompt.match(/^write (\S+)$/i))) return call(write, { file_path: m[1], content: "written by the fake model\n" });
  return { text: "Nothing to do." };
}

let ids = 0;

function answer(res: http.ServerResponse, body: Record<string, unknown>) {
  const model = typeof body.model === "string" ? body.model : "fake-model";
  const scripted = scriptedChatAnswer(body as never);
  const id = `chatcmpl-fake-${++ids}`;
  const created = Math.floor(Date.now() / 1000);
  const toolCall = scripted.call && { index: 0, id: `call_fake_${ids}`, type: "function", function: scripted.call };
  const finish = toolCall ? "tool_calls" : "stop";
  if (body.stream !== true) {
    const message = { role: "assistant", content: scripted.text ?? null, ...(toolCall && { tool_calls: [toolCall] }) };
    return sendJson(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage: FAKE_CHAT_USAGE });
  }
  // Data-only SSE lines, as OpenAI sends them: the delta, the finish, the usage, then [DONE].
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
  chunk(toolCall ? { role: "assistant", content: null, tool_calls: [toolCall] } : { role: "assistant", content: scripted.text }, null);
  chunk({}, finish);
  res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: FAKE_CHAT_USAGE })}\n\n`);
  res.end("data: [DONE]\n\n");
}

export function startFakeOpenAiChat(port = 0): Promise<FakeOpenAiChat> {
  return startFakeModelApi(
    "FAKE_CHAT_LOG",
    ({ method, path, body }, res) => {
      if (method === "POST" && path.endsWith("/chat/completions")) return answer(res, body);
      if (method === "GET" && path.endsWith("/models")) return sendJson(res, 200, { object: "list", data: [{ id: "fake-model", object: "model" }] });
      sendJson(res, 404, { error: { message: `no ${path} here` } });
    },
    port,
  );
}

serveWhenRunDirectly(import.meta.url, startFakeOpenAiChat);
