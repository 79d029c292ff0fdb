/**
 * Test support: a local stand-in for the Gemini API (`generateContent`, `streamGenerateContent`
 * with `alt=sse`, `countTokens`), enough for the real Gemini CLI (GOOGLE_GEMINI_BASE_URL pointing
 * here) to run a scripted session. The newest user text picks a call: "write FILE" → write_file,
 * "bash: CMD" or "fail" → run_shell_command; once a function response is back the model is done.
 */
import { json as sendJson } from "@/lib/core/hooks/testing/fakes";
import { serveWhenRunDirectly, startFakeModelApi, type FakeModelApi } from "./fake-model-api";

type Part = { text?: string; functionCall?: { name: string; args: Record<string, unknown> }; functionResponse?: unknown; thought?: boolean };
type Content = { role?: string; parts?: Part[] };

export type FakeGemini = FakeModelApi;

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

export function startFakeGemini(port = 0): Promise<FakeGemini> {
  return startFakeModelApi(
    "FAKE_GEMINI_LOG",
    ({ method, path, body }, res) => {
      const action = path.split(":").pop();
      if (method === "POST" && action === "countTokens") return sendJson(res, 200, { totalTokens: 1000 });
      if (method === "POST" && (action === "generateContent" || action === "streamGenerateContent")) {
        // Side requests (e.g. the CLI's own routing or next-speaker checks) ask for JSON: answer plainly.
        const wantsJson = (body.generationConfig as { responseMimeType?: string } | undefined)?.responseMimeType === "application/json";
        const parts = wantsJson ? [{ text: JSON.stringify({ reasoning: "fake", next_speaker: "user", model_choice: "flash" }) }] : scriptedGeminiAnswer(body as never);
        const answer = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: FAKE_GEMINI_USAGE, modelVersion: "gemini-fake" };
        if (action !== "streamGenerateContent") return sendJson(res, 200, answer);
        // Gemini's SSE is data-only lines, one chunk for the whole answer.
        res.writeHead(200, { "content-type": "text/event-stream" });
        return void res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      }
      sendJson(res, 404, { error: { code: 404, message: `no ${path} here`, status: "NOT_FOUND" } });
    },
    port,
  );
}

serveWhenRunDirectly(import.meta.url, startFakeGemini);
