/**
 * Test support: a local stand-in for the Gemini API (`generateContent`, `streamGenerateContent`
 * with `alt=sse`, `countTokens`), enough for the real Gemini CLI (GOOGLE_GEMINI_BASE_URL pointing
 * here) to run a scripted session. The newest user text picks a call: "write FILE" → write_file,
 * "bash: CMD" or "fail" → run_shell_command; once a function response is back the model is done.
 */
import { appendFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

type Part = { text?: string; functionCall?: { name: string; args: Record<string, unknown> }; functionResponse?: unknown; thought?: boolean };
type Content = { role?: string; parts?: Part[] };

export interface FakeGemini {
  url: string;
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export const FAKE_GEMINI_USAGE = { promptTokenCount: 1000, candidatesTokenCount: 50, totalTokenCount: 1050, cachedContentTokenCount: 200 };

export function scriptedGeminiAnswer(body: { contents?: Content[]; tools?: { functionDeclarations?: { name: string }[] }[] }): Part[] {
  const contents = body.contents ?? [];
  const last = contents[contents.length - 1];
  if (last?.parts?.some((p) => p.functionResponse !== undefined)) return [{ text: "Done." }];
  const lastUser = [...contents].reverse().find((c) => c.role === "user" && c.parts?.some((p) => typeof p.text === "string"));
  const texts = (lastUser?.parts ?? []).filter((p) => typeof p.text === "string").map((p) => p.text!);
  const text = texts[texts.length - 1] ?? "";
  const tools = new Set((body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name));
  let m: RegExpMatchArray | null;
  const call = (name: string, args: Record<string, unknown>): Part[] => (tools.size === 0 || tools.has(name) ? [{ functionCall: { name, args } }] : [{ text: `no ${name} tool` }]);
  if ((m = text.match(/write (\S+)/i))) return call("write_file", { file_path: m[1], content: "written by the fake model\n" });
  if (/\bfail\b/i.test(text)) return call("run_shell_command", { command: "exit 3", description: "Fail on purpose" });
  if ((m = text.match(/bash: (.+)$/im))) return call("run_shell_command", { command: m[1].trim(), description: "Run a command" });
  return [{ text: "Nothing to do." }];
}

export async function startFakeGemini(port = 0): Promise<FakeGemini> {
  const requests: FakeGemini["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        /* answered below */
      }
      requests.push({ path: url.pathname, body });
      if (process.env.FAKE_GEMINI_LOG) appendFileSync(process.env.FAKE_GEMINI_LOG, `${JSON.stringify({ path: url.pathname, body })}\n`);
      const action = url.pathname.split(":").pop();
      if (req.method === "POST" && action === "countTokens") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ totalTokens: 1000 }));
        return;
      }
      if (req.method === "POST" && (action === "generateContent" || action === "streamGenerateContent")) {
        // Side requests (e.g. the CLI's own routing or next-speaker checks) ask for JSON: answer plainly.
        const wantsJson = (body.generationConfig as { responseMimeType?: string } | undefined)?.responseMimeType === "application/json";
        const parts = wantsJson ? [{ text: JSON.stringify({ reasoning: "fake", next_speaker: "user", model_choice: "flash" }) }] : scriptedGeminiAnswer(body as never);
        const answer = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: FAKE_GEMINI_USAGE, modelVersion: "gemini-fake" };
        if (action === "streamGenerateContent") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
        } else {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
        }
        return;
      }
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: 404, message: `no ${url.pathname} here`, status: "NOT_FOUND" } }));
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

// `tsx lib/bridge/testing/fake-gemini-api.ts [port]`: serve until killed (capturing fixtures by hand).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  void startFakeGemini(Number(process.argv[2] ?? 0)).then((fake) => console.log(fake.url));
}
