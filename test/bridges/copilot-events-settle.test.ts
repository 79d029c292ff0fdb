/**
 * Copilot CLI writes its events file behind its hooks (bin/lib/copilot-events-settle.cjs): at
 * sessionEnd the bridge waits for the running hook's own `hook.start` line, so the model calls
 * written before it are counted; it does not wait on a file that never logs hooks, nor forever.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

const require = createRequire(import.meta.url);
const { settledEventsText } = require("../../bin/lib/copilot-events-settle.cjs") as {
  settledEventsText(path: string, eventName: string, timestamp: unknown, limitMs?: number): Promise<string | undefined>;
};
const usage = require("../../bin/lib/transcript-usage.cjs") as Record<string, (path: string) => { id: string; input_tokens: number }[]>;

const line = (entry: object) => `${JSON.stringify(entry)}\n`;
const usageRecord = (apiCallId: string) => line({ type: "session.usage_record", data: { usage: { model: "fake-model", apiCallId, inputTokens: 1000, outputTokens: 40, cacheReadTokens: 100 } } });
const hookStart = (hookType: string, timestamp: number) => line({ type: "hook.start", data: { hookType, input: { sessionId: "s", timestamp } } });

function eventsFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "hp-copilot-events-")), "events.jsonl");
  writeFileSync(file, text);
  return file;
}

test("the usage written after the hook started is waited for: both model calls are read, the file read once", async () => {
  const file = eventsFile(line({ type: "session.start" }) + hookStart("sessionStart", 1) + usageRecord("call-1"));
  // Copilot writes the second call and this sessionEnd's own start 150 ms after the hook began.
  setTimeout(() => appendFileSync(file, usageRecord("call-2") + hookStart("agentStop", 2)), 80);
  setTimeout(() => appendFileSync(file, hookStart("sessionEnd", 3).slice(0, 20)), 120);
  setTimeout(() => appendFileSync(file, hookStart("sessionEnd", 3).slice(20)), 150);
  const started = Date.now();
  const text = await settledEventsText(file, "sessionEnd", 3, 5000);
  expect(Date.now() - started).toBeLessThan(2000);
  expect(text).toContain('"hookType":"sessionEnd"');
  // Later writes are not what was read: the reader sees the settled text, not a fresh read.
  appendFileSync(file, usageRecord("call-3"));
  expect(usage.copilot!(file).map((m) => m.id)).toEqual(["call-1", "call-2"]);
});

test("an earlier start of the same hook (another turn's agentStop) does not count: only this one's timestamp", async () => {
  const file = eventsFile(hookStart("sessionStart", 1) + hookStart("agentStop", 5) + usageRecord("call-1"));
  setTimeout(() => appendFileSync(file, usageRecord("call-2") + hookStart("agentStop", 9)), 100);
  const text = await settledEventsText(file, "agentStop", 9, 5000);
  expect(text).toContain("call-2");
});

test("a file that logs no hook starts is read once it holds a line written after the hook began, or after a short wait; one whose line never comes is read at the limit", async () => {
  const hookAt = Date.parse("2026-11-29T10:00:00.000Z");
  const past = eventsFile(line({ type: "session.start", timestamp: "2026-11-29T09:59:59.000Z" }) + usageRecord("call-1") + line({ type: "session.shutdown", timestamp: "2026-11-29T10:00:00.100Z" }));
  let started = Date.now();
  expect(await settledEventsText(past, "sessionEnd", hookAt, 5000)).toContain("call-1");
  expect(Date.now() - started).toBeLessThan(500);

  const quiet = eventsFile(line({ type: "session.start" }) + usageRecord("call-1"));
  started = Date.now();
  expect(await settledEventsText(quiet, "sessionEnd", 3, 5000)).toContain("call-1");
  expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  expect(Date.now() - started).toBeLessThan(3000);

  const stalled = eventsFile(hookStart("sessionStart", 1) + usageRecord("call-1"));
  started = Date.now();
  expect(await settledEventsText(stalled, "sessionEnd", 3, 300)).toContain("call-1");
  expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  // No timestamp in the payload: nothing to wait for.
  expect(await settledEventsText(stalled, "sessionEnd", undefined, 5000)).toBeUndefined();
});

test("a file that lags whole (not there yet, then empty, then written) is waited on: the hook's usage is read", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "hp-copilot-events-"));
  const file = path.join(dir, "events.jsonl");
  setTimeout(() => writeFileSync(file, ""), 100);
  setTimeout(() => appendFileSync(file, line({ type: "session.start" }) + hookStart("sessionStart", 1) + usageRecord("call-1")), 300);
  setTimeout(() => appendFileSync(file, usageRecord("call-2") + hookStart("sessionEnd", 3)), 500);
  const text = await settledEventsText(file, "sessionEnd", 3, 5000);
  expect(text).toContain("call-2");
  expect(usage.copilot!(file).map((m) => m.id)).toEqual(["call-1", "call-2"]);
});
