/**
 * Redaction that holds on Hookplane's own agent loop: real runs on the run queue whose shell tool
 * prints an AWS secret access key (decoded from base64, so the key is in no tool input), with a
 * `detect` hook that redacts secrets on tool.post. Enforced: the model reads the redacted output
 * and the stored record holds only that (the tool.post event, the transcript, the ledger row with
 * the original's hash, the ledger export, the spans). In shadow mode the model reads the original,
 * and the record still does not hold the key. Both checked by searching every stored row's text.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "@/lib/platform/config/config";
import { otelConfigOf } from "@/lib/platform/telemetry/otel-config";
import { createTraceExport, installTraceExport, traceExport } from "@/lib/platform/telemetry/trace-export";
import { parseCsv } from "@/test/csv";
import { setEnv } from "@/test/config-env";
import { startOtlpReceiver, traceOfRun, type OtlpReceiver } from "@/test/otlp-receiver";
import { addToken } from "@/test/people";
import { addAgent, createRunHarness, expectWellFormedStream, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import * as ledgerExportRoute from "@/app/api/v1/ledger/export/route";
import { estimateTokens } from "@/lib/core/agent/providers/scripted-provider";
import { startRun } from "./run-service";

const KEY = "Xn7mXk9aLq2Wv8Rt5Yp3Zc6Bd1Fg4Hj0Kl7Mn2Qs";
const ENV_FILE = `AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2\nAWS_SECRET_ACCESS_KEY=${KEY}\nREGION=eu-west-1\n`;
// The key pair: secretlint's aws rule finds the secret, gitleaks' aws-access-token rule the key id.
const REDACTED = "AWS_ACCESS_KEY_ID=[REDACTED secrets/aws-access-token]\nAWS_SECRET_ACCESS_KEY=[REDACTED secrets/aws]\nREGION=eu-west-1\n";
const FOUND = `secrets/aws: found AWS Secret Access Key: ${"*".repeat(40)}; secrets/aws-access-token: Identified a pattern that may indicate AWS credentials: AKIA… (20 characters)`;
const COMMAND = `printf %s ${Buffer.from(ENV_FILE).toString("base64")} | base64 -d`;

let h: RunHarness;
let receiver: OtlpReceiver;
let viewer: string;

beforeAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" });
  receiver = await startOtlpReceiver();
  // Content on spans too: the tool result is what a leak would carry there.
  installTraceExport(createTraceExport(otelConfigOf(loadConfig({ OTEL_BSP_SCHEDULE_DELAY: "10", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, HOOKPLANE_OTEL_CAPTURE_CONTENT: "true" }))!, { warn: () => {}, info: () => {} }));
  h = await createRunHarness();
  viewer = (await addToken(h.t.db, { name: "auditor", role: "viewer" })).token;
});
afterAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: undefined });
  await h.close();
  await traceExport()?.shutdown();
  installTraceExport(undefined);
  await receiver.close();
});

async function runReadingTheKey(name: string, mode: "enforce" | "shadow") {
  const agent = await addAgent(
    h.t,
    { name, tools: ["shell"], script: [{ text: "reading the env", toolCalls: [{ name: "shell", input: { command: COMMAND } }] }, { text: "read it" }] },
    [{ id: `${name}-redact`, event: "tool.post", matcher: "shell", mode, action: { type: "detect", detectors: ["secrets"], verdict: "redact" } }],
  );
  const started = await startRun(h.t.db, operator, { agent: agent.name, prompt: "what is in the env?" });
  const run = await waitForRun(h.t, started.id, (r) => r.status === "finished");
  expect(run.outcome).toBe("completed");
  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  return { run, events };
}

/** Where in the database the key is: every row of the run's tables, as text. */
async function keyFoundIn(runId: string) {
  const { rows } = await h.t.execute(
    `select (select count(*)::int from run_events where run_id = $1 and run_events::text like $2) as events,
            (select count(*)::int from hook_invocations where run_id = $1 and hook_invocations::text like $2) as ledger,
            (select count(*)::int from run_messages where run_id = $1 and run_messages::text like $2) as transcript,
            (select count(*)::int from runs where id = $1 and runs::text like $2) as run`,
    [runId, `%${KEY}%`],
  );
  return rows[0];
}

async function ledgerExport(runId: string, format: "csv" | "ndjson") {
  const res = await ledgerExportRoute.GET(new Request(`http://localhost/?format=${format}&runId=${runId}`, { headers: { authorization: `Bearer ${viewer}` } }));
  expect(res.status).toBe(200);
  return res.text();
}

/**
 * How long the tool result the model read on its second call was: the scripted model's input
 * tokens are its request's characters / 4 (estimateTokens), the prompt, its first answer and the
 * tool result, so what the model read is told apart by length (the marker is 18 characters
 * shorter than the key). Four characters a token: the length is known to within 3.
 */
function secondCallRead(events: { type: string; data: Record<string, unknown> }[]): number {
  const second = events.filter((e) => e.type === "model.post")[1];
  const before = "what is in the env?".length + "reading the env".length + "shell".length + JSON.stringify({ command: COMMAND }).length;
  const tokens = Number(second.data.inputTokens);
  for (const length of [REDACTED.length, ENV_FILE.length]) if (estimateTokens(before + length) === tokens) return length;
  throw new Error(`the second call read ${tokens * 4 - before} characters or so, neither output`);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("a secret in a tool's output", () => {
  test("enforced: the model reads it redacted, and the event, transcript, ledger, export and spans hold only the redaction", async () => {
    const { run, events } = await runReadingTheKey("reads-env", "enforce");
    const post = events.find((e) => e.type === "tool.post")!;
    expect(post.data).toEqual({ toolName: "shell", toolInput: { command: COMMAND }, toolCallId: "call_1_1", output: REDACTED, isError: false, durationMs: post.data.durationMs, redacted: true });
    // The event is recorded once, after its hook: its ledger row points at it, then the change it made.
    expect(events.filter((e) => e.data.toolCallId === "call_1_1").map((e) => e.type)).toEqual(["tool.pre", "tool.post", "loop.tool_modified"]);
    const { rows: ledger } = await h.t.execute(
      `select hook_key, event_seq, mode, verdict, ignored, reason, modification from hook_invocations where run_id = $1 and hook_key = 'reads-env-redact'`,
      [run.id],
    );
    expect(ledger).toEqual([
      {
        hook_key: "reads-env-redact",
        event_seq: post.seq,
        mode: "enforce",
        verdict: "allow",
        ignored: false,
        reason: `redacted: ${FOUND}`,
        modification: { kind: "output", originalSha256: sha256(ENV_FILE), replaced: REDACTED, applied: true },
      },
    ]);
    expect(secondCallRead(events)).toBe(REDACTED.length);
    expect(await keyFoundIn(run.id)).toEqual({ events: 0, ledger: 0, transcript: 0, run: 0 });

    const csv = parseCsv(await ledgerExport(run.id, "csv"));
    const ndjson = await ledgerExport(run.id, "ndjson");
    expect(csv.flat()).toContain(`redacted: ${FOUND}`);
    expect(ndjson).toContain("reads-env-redact");
    expect(JSON.stringify(csv) + ndjson).not.toContain(KEY);

    const spans = await traceOfRun(receiver, run.id, 4);
    const tool = spans.find((s) => s.name === "execute_tool shell")!;
    expect(tool.attributes["gen_ai.tool.call.result"]).toBe(REDACTED);
    expect(JSON.stringify(spans)).not.toContain(KEY);
  });

  test("in shadow mode: the model reads the original; the event holds the redaction, marked shadow, and the ledger row says what it would have done", async () => {
    const { run, events } = await runReadingTheKey("trials-redaction", "shadow");
    const post = events.find((e) => e.type === "tool.post")!;
    expect(post.data).toMatchObject({ output: REDACTED, redacted: true, redactedInShadow: true });
    expect(events.filter((e) => e.data.toolCallId === "call_1_1").map((e) => e.type)).toEqual(["tool.pre", "tool.post"]);
    const { rows: ledger } = await h.t.execute(`select event_seq, mode, verdict, ignored, reason, modification from hook_invocations where run_id = $1 and hook_key = 'trials-redaction-redact'`, [run.id]);
    expect(ledger).toEqual([
      {
        event_seq: post.seq,
        mode: "shadow",
        verdict: "allow",
        ignored: true,
        reason: `shadow (not applied): redacted: ${FOUND}`,
        modification: { kind: "output", originalSha256: sha256(ENV_FILE), replaced: REDACTED, applied: false },
      },
    ]);
    // Shadow changes nothing for the model; its working transcript, which held the original, is dropped with the finished run.
    expect(secondCallRead(events)).toBe(ENV_FILE.length);
    expect(await keyFoundIn(run.id)).toEqual({ events: 0, ledger: 0, transcript: 0, run: 0 });
    expect(await ledgerExport(run.id, "ndjson")).not.toContain(KEY);
    const spans = await traceOfRun(receiver, run.id, 4);
    expect(spans.find((s) => s.name === "execute_tool shell")!.attributes["gen_ai.tool.call.result"]).toBe(REDACTED);
    expect(JSON.stringify(spans)).not.toContain(KEY);
  });
});
