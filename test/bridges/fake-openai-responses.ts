/**
 * Test support: a local stand-in for OpenAI's Responses API (streamed), enough for the real Codex
 * CLI (a `model_providers` entry whose base_url points here) or the Copilot CLI (BYOK:
 * COPILOT_PROVIDER_BASE_URL, wire API `responses`) to run a scripted session: the newest
 * user text picks a shell call ("bash: CMD", "fail" → `exit 3`), and once a function call's output
 * is back the model says it is done.
 */
import type http from "node:http";
import { json as sendJson } from "@/lib/core/hooks/testing/fakes";
import { serveWhenRunDirectly, sseStream, startFakeModelApi, type FakeModelApi } from "./fake-model-api";

type Item = { type?: string; role?: string; content?: unknown; output?: unknown; call_id?: string };
type Tool = { type?: string; name?: string; parameters?: { properties?: Record<string, unknown> } };

export type FakeResponses = FakeModelApi;

export const FAKE_RESPONSES_USAGE = { input_tokens: 900, input_tokens_details: { cached_tokens: 100 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 940 };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("\n");
}

let ids = 0;

/** The shell call in the form this client offers: Codex's `exec_command` or `shell`, Copilot CLI's `bash`. */
function shellCall(tools: Tool[], command: string): { name: string; arguments: string } | undefined {
  if (tools.some((t) => t.name === "bash")) return { name: "bash", arguments: JSON.stringify({ command, description: "Run a command" }) };
  const exec = tools.find((t) => t.name === "exec_command");
  if (exec) return { name: "exec_command", arguments: JSON.stringify({ cmd: command }) };
  const shell = tools.find((t) => t.name === "shell" || t.name === "local_shell");
  if (shell) return { name: shell.name!, arguments: JSON.stringify({ command: ["bash", "-lc", command] }) };
  return undefined;
}

export function scriptedResponse(body: { input?: Item[]; tools?: Tool[] }): { text?: string; call?: { name: string; arguments: string } } {
  const input = body.input ?? [];
  const last = input[input.length - 1];
  if (last?.type === "function_call_output" || last?.type === "custom_tool_call_output") return { text: "Done." };
  const user = [...input].reverse().find((i) => i.role === "user" && textOf(i.content).trim() !== "");
  const text = textOf(user?.content);
  const lines = text.split("\n").filter((l) => l.trim() !== "" && !l.trimStart().startsWith("<"));
  // The scripted line, wherever hooks' context put it (Copilot CLI appends a system reminder after the prompt).
  const prompt = [...lines].reverse().find((l) => /bash: |\bfail\b/i.test(l)) ?? lines[lines.length - 1] ?? "";
  let m: RegExpMatchArray | null;
  const tools = body.tools ?? [];
  if (/\bfail\b/i.test(prompt)) return { call: shellCall(tools, "exit 3") };
  if ((m = prompt.match(/bash: (.+)$/i))) return { call: shellCall(tools, m[1].trim()) };
  return { text: "Nothing to do." };
}

function stream(res: http.ServerResponse, model: string, answer: ReturnType<typeof scriptedResponse>) {
  const sse = sseStream(res);
  const id = `resp_fake_${++ids}`;
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) => sse(type, { type, sequence_number: seq++, ...data });
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "in_progress", output: [] };
  send("response.created", { response: base });
  const item = answer.call
    ? { type: "function_call", id: `fc_${ids}`, call_id: `call_fake_${Date.now().toString(36)}_${ids}`, name: answer.call.name, arguments: answer.call.arguments, status: "completed" }
    : { type: "message", id: `msg_${ids}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: answer.text ?? "", annotations: [] }] };
  send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress" } });
  if (!answer.call) send("response.output_text.delta", { output_index: 0, item_id: item.id, content_index: 0, delta: answer.text ?? "" });
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: { ...base, status: "completed", output: [item], usage: FAKE_RESPONSES_USAGE } });
  res.end();
}

export function startFakeResponses(port = 0): Promise<FakeResponses> {
  return startFakeModelApi(
    "FAKE_RESPONSES_LOG",
    ({ method, path, body }, res) => {
      if (method === "POST" && path.endsWith("/responses")) return stream(res, typeof body.model === "string" ? body.model : "fake", scriptedResponse(body as never));
      if (method === "GET" && path.endsWith("/models")) return sendJson(res, 200, { object: "list", data: [{ id: "fake-model", object: "model" }] });
      sendJson(res, 404, { error: { message: `no ${path} here` } });
    },
    port,
  );
}

serveWhenRunDirectly(import.meta.url, startFakeResponses);
