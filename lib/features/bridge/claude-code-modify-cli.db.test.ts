/**
 * The modify verb with the real Claude Code CLI (HOOKPLANE_CLAUDE_BIN; 2.1.332 reads
 * `updatedToolOutput`): a hook's rewrite and an approver's edit are what runs, and a redacted
 * output is what the model sees. Claude Code talks to a local fake of Anthropic's API; its
 * settings are the export of the agent's hooks, whose bridge is the real `hookplane` CLI.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { getApprovalInAnyProject } from "@/db/queries/approvals";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { findAgentCli, useAgentWorkspace, useBridgeHarness, type BridgeHarness } from "@/test/bridge-harness";
import { startFakeAnthropic } from "@/test/bridges/fake-anthropic-api";
import { exportConfig } from "@/lib/core/dialects";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as ledgerExportRoute from "@/app/api/v1/ledger/export/route";

const CLAUDE = findAgentCli("HOOKPLANE_CLAUDE_BIN", "claude");
const SKIP = "Claude Code CLI not installed: set HOOKPLANE_CLAUDE_BIN to its `claude` to run these";
const AGENT = "rewritten";

const HOOKS: HookSpecInput[] = [
  // Whatever the model asks to touch, the file made is `rewritten` (a merge patch on the Bash input).
  { id: "touch-rewritten", event: "tool.pre", matcher: "Bash", when: "toolInput.command: /^touch /", action: { type: "modify", input: { command: "touch rewritten" } } },
  { id: "ask-writes", event: "tool.pre", matcher: "Write", action: { type: "approve", timeoutMs: 120_000, onTimeout: "deny" } },
  { id: "no-keys", event: "tool.post", matcher: "Bash", action: { type: "modify", redact: ["sk-live-[A-Za-z0-9]+"] } },
  { id: "confirm-asked", event: "tool.pre", matcher: "Bash", when: "toolInput.command: /asked/", action: { type: "ask", reason: "a person at the terminal confirms this" } },
  { id: "redact-secrets", event: "tool.post", matcher: "Bash", action: { type: "detect", detectors: ["secrets"], verdict: "redact" } },
];

/** A fake AWS key pair secretlint's aws rule finds (the secret access key; an access key id alone it does not report). */
const AWS_SECRET = "Xn7mXk9aLq2Wv8Rt5Yp3Zc6Bd1Fg4Hj0Kl7Mn2Qs";
const AWS_ENV = `AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\n`;

describe.skipIf(!CLAUDE)(CLAUDE ? "the real Claude Code CLI and changed calls" : SKIP, () => {
  const h: BridgeHarness = useBridgeHarness({
    ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
    agents: { [AGENT]: HOOKS },
  });
  const workspace = useAgentWorkspace(h, "hp-claude-modify-", startFakeAnthropic);
  let settings: string;

  function project(name: string): string {
    const dir = path.join(workspace.work, name);
    mkdirSync(path.join(dir, ".claude"), { recursive: true });
    mkdirSync(path.join(dir, "home"), { recursive: true });
    writeFileSync(path.join(dir, ".claude", "settings.json"), settings);
    return dir;
  }

  const runClaude = (dir: string, prompt: string, args: string[] = []) =>
    workspace.run(CLAUDE!, ["-p", prompt, "--output-format", "json", ...args], dir, {
      HOME: path.join(dir, "home"),
      ANTHROPIC_BASE_URL: workspace.fake.url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
    });

  /** Every tool result the model was sent, as text. */
  const toolResults = () =>
    workspace.fake.requests.flatMap((r) =>
      ((r.body.messages ?? []) as { content?: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b: { type?: string }) => b.type === "tool_result") : [])),
    ).map((b) => JSON.stringify(b));

  beforeAll(() => {
    settings = exportConfig("claude-code", { agents: [], hooks: HOOKS.map((hook) => ({ ...hook, scope: `agent:${AGENT}` })), schedules: [] }, { agent: AGENT }).content;
    expect(Object.keys(JSON.parse(settings).hooks)).toEqual(expect.arrayContaining(["PreToolUse", "PostToolUse"]));
  });

  test("a hook's rewrite is what runs: the model asked for `touch original`, the file made is `rewritten`", async () => {
    const dir = project("rewrite");
    const out = await runClaude(dir, "bash: touch original", ["--allowedTools", "Bash"]).done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(path.join(dir, "original"))).toBe(false);
    expect(existsSync(path.join(dir, "rewritten"))).toBe(true);
  }, 120_000);

  test("an approver's edited input is what runs, and the ledger keeps what was asked and what was approved", async () => {
    const dir = project("edit");
    const { done } = runClaude(dir, "write notes.txt");
    const approval = await h.pendingApproval((a) => a.toolName === "Write");
    const asked = approval.toolInput as { file_path: string; content: string };
    expect(asked.content).toBe("written by the fake model\n");
    const edited = { ...asked, content: "edited by the approver\n" };
    expect((await h.decide(approval.id, { decision: "approve", reason: "softer", input: edited })).status).toBe(200);
    const out = await done;
    expect(out.code, out.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("edited by the approver\n");
    expect(await getApprovalInAnyProject(h.t.db, { id: approval.id })).toMatchObject({ status: "approved", toolInput: asked, approvedInput: edited });
    const row = (await listRunHookInvocations(h.t.db, { runId: approval.runId })).find((r) => r.hookKey === "ask-writes")!;
    expect(row.modification).toEqual({ kind: "input", proposed: asked, approved: edited, effective: edited, applied: true });
  }, 180_000);

  test("ask is Claude Code's own: with nobody at the terminal (-p) the call does not run", async () => {
    const dir = project("ask");
    const out = await runClaude(dir, "bash: mkdir asked", ["--allowedTools", "Bash"]).done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(path.join(dir, "asked"))).toBe(false);
  }, 120_000);

  test("a fake AWS key printed by `cat` is redacted before the model's next request, and is nowhere in the stored record", async () => {
    const dir = project("aws-key");
    writeFileSync(path.join(dir, "aws.env"), AWS_ENV);
    const before = workspace.fake.requests.length;
    const out = await runClaude(dir, "bash: cat aws.env", ["--allowedTools", "Bash"]).done;
    expect(out.code, out.stderr).toBe(0);
    // The request after the tool ran carries its result: the marker, not the key.
    const sent = workspace.fake.requests.slice(before).map((r) => JSON.stringify(r.body));
    const results = toolResults().filter((r) => r.includes("AWS_SECRET_ACCESS_KEY"));
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(result).toContain("AWS_SECRET_ACCESS_KEY=[REDACTED secrets/aws]");
    expect(sent.join("\n")).not.toContain(AWS_SECRET.slice(-12));
    expect(sent.join("\n")).not.toContain(AWS_SECRET);
    expect(sent.join("\n")).not.toContain("AKIAQYLPMN5HHHFPZAM2");

    const { rows: posts } = await h.t.execute(`select run_id, seq, data from run_events where type = 'tool.post' and data->'toolInput'->>'command' = 'cat aws.env'`);
    expect(posts).toHaveLength(1);
    const [post] = posts as { run_id: string; seq: number; data: Record<string, unknown> }[];
    // The key pair: secretlint's aws rule finds the secret, gitleaks' aws-access-token rule the key id.
    expect(post.data).toMatchObject({ toolName: "Bash", redacted: true, output: { stdout: "AWS_ACCESS_KEY_ID=[REDACTED secrets/aws-access-token]\nAWS_SECRET_ACCESS_KEY=[REDACTED secrets/aws]" } });
    const row = (await listRunHookInvocations(h.t.db, { runId: post.run_id })).find((r) => r.hookKey === "redact-secrets" && r.eventSeq === post.seq)!;
    expect(row).toMatchObject({
      verdict: "allow",
      reason: `redacted: secrets/aws: found AWS Secret Access Key: ${"*".repeat(40)}; secrets/aws-access-token: Identified a pattern that may indicate AWS credentials: AKIA… (20 characters)`,
      modification: { kind: "output", applied: true },
    });
    expect(row.modification).toHaveProperty("originalSha256");
    const { rows: anywhere } = await h.t.execute(
      `select (select count(*)::int from run_events where run_events::text like $1) as events, (select count(*)::int from hook_invocations where hook_invocations::text like $1) as ledger`,
      [`%${AWS_SECRET}%`],
    );
    expect(anywhere).toEqual([{ events: 0, ledger: 0 }]);
    for (const format of ["csv", "ndjson"]) {
      const exported = await ledgerExportRoute.GET(new Request(`http://localhost/?format=${format}&runId=${post.run_id}`, { headers: { authorization: `Bearer ${h.operator}` } }));
      expect(exported.status).toBe(200);
      const text = await exported.text();
      expect(text).toContain("redact-secrets");
      expect(text).not.toContain(AWS_SECRET);
    }
  }, 120_000);

  test("a redacted output is what the model sees", async () => {
    const dir = project("redact");
    const out = await runClaude(dir, "bash: echo token=sk-live-abc123XYZ", ["--allowedTools", "Bash"]).done;
    expect(out.code, out.stderr).toBe(0);
    const results = toolResults().filter((r) => r.includes("token="));
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) {
      expect(result).toContain("token=[REDACTED]");
      expect(result).not.toContain("sk-live-abc123XYZ");
    }
  }, 120_000);
});
