/**
 * Test support: a local stand-in for OpenAI's Responses API (streamed), enough for the real Codex
 * CLI (a `model_providers` entry whose base_url points here) or the Copilot CLI (BYOK:
 * COPILOT_PROVIDER_BASE_URL, wire API `responses`) to run a scripted session: the newest
 * user text picks a shell call ("bash: CMD", "fail" → `exit 3`), and once a function call's output
 * is back the model says it is done.
 */
import { appendFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

type Item = { type?: string; role?: string; content?: unknown; output?: unknown; call_id?: string };
type Tool = { type?: string; name?: string; parameters?: { properties?: Record<string, unknown> } };

export interface FakeResponses {
  url: string;
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

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
  const prompt = lines[lines.length - 1] ?? "";
  let m: RegExpMatchArray | null;
  const tools = body.tools ?? [];
  if (/\bfail\b/i.test(prompt)) return { call: shellCall(tools, "exit 3") };
  if ((m = prompt.match(/bash: (.+)$/i))) return { call: shellCall(tools, m[1].trim()) };
  return { text: "Nothing to do." };
}

function stream(res: http.ServerResponse, model: string, answer: ReturnType<typeof scriptedResponse>) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const id = `resp_fake_${++ids}`;
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
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

export async function startFakeResponses(port = 0): Promise<FakeResponses> {
  const requests: FakeResponses["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        /* answered below */
      }
      requests.push({ path, body });
      if (process.env.FAKE_RESPONSES_LOG) appendFileSync(process.env.FAKE_RESPONSES_LOG, `${JSON.stringify({ path, body })}\n`);
      if (req.method === "POST" && path.endsWith("/responses")) return stream(res, typeof body.model === "string" ? body.model : "fake", scriptedResponse(body as never));
      if (req.method === "GET" && path.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model" }] }));
        return;
      }
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no ${path} here` } }));
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

// `tsx lib/bridge/testing/fake-openai-responses.ts [port]`: serve until killed (capturing fixtures by hand).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  void startFakeResponses(Number(process.argv[2] ?? 0)).then((fake) => console.log(fake.url));
}
