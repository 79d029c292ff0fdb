/**
 * Test support for the coding-agent bridges (lib/features/bridge/*.db.test.ts): what every
 * agent's test needs besides its own payloads, hooks and assertions.
 *
 * - useBridgeHarness: a fresh database with an operator token, the agents with their hooks, and the
 *   agent's ingest route served over HTTP for the `hookplane` CLI; approvals found and decided.
 * - recordedPayloads: the hook payloads recorded from a real CLI (test/fixtures/bridges), in order.
 * - findAgentCli / useAgentWorkspace: the real agent CLI (HOOKPLANE_<AGENT>_BIN, or on PATH), run
 *   in throwaway projects with `hookplane` on the PATH its hooks see, as an installed package
 *   would put it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { listApprovals, type ApprovalRow } from "@/db/queries/approvals";
import { createHook } from "@/db/queries/hooks";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { stopProcessApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { startRouteServer, type RouteEntry, type RouteServer } from "@/lib/platform/api/route-server";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import { callRoute } from "./api-client";
import { createTestDatabase, type TestDatabase } from "./database";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPersonToken, addToken } from "@/test/people";

export { closedPort } from "@/lib/core/hooks/testing/fakes";

export const HOOKPLANE_CLI = path.resolve(import.meta.dirname, "../bin/hookplane.cjs");

type HookInput = Record<string, unknown>;
/** An agent's hooks (scoped to it), or its spec fields and hooks. */
export type AgentSetup = HookInput[] | { spec?: Record<string, unknown>; hooks?: HookInput[] };

export interface BridgeHarness {
  t: TestDatabase;
  server: RouteServer;
  operator: string;
  /** Another operator's token: who decides the approvals the agent's calls raise. */
  approver: string;
  agentIds: Record<string, string>;
  /** A hook payload through the ingest route, in process, as the agent's bridge would send it. */
  send(agent: string, payload: unknown): ReturnType<typeof callRoute>;
  /** HOOKPLANE_URL and HOOKPLANE_TOKEN for the `hookplane` CLI. */
  cliEnv(): { HOOKPLANE_URL: string; HOOKPLANE_TOKEN: string };
  /** Waits for a pending approval `match` accepts. */
  pendingApproval(match: (approval: ApprovalRow) => boolean, wait?: { timeout?: number; limit?: number }): Promise<ApprovalRow>;
  decide(id: string, body: { decision: "approve" | "deny"; reason?: string; input?: Record<string, unknown> }): ReturnType<typeof callRoute>;
}

/** The guards most agents' tests put on their gates agent: `rm -rf` blocked in the shell tool... */
export const noRmHook = (shellTool: string): HookInput => ({ id: "no-rm", event: "tool.pre", matcher: shellTool, action: { type: "block", reason: "No rm -rf here", denyIf: "rm -rf" } });
/** ...and a turn's first end sent back to run the tests. */
export const TESTS_FIRST_HOOK: HookInput = { id: "tests-first", event: "turn.end", when: "stopHookActive: false", action: { type: "block", reason: "Run the tests before you stop." } };

/**
 * Registers beforeAll/afterAll in the calling scope (a file, or a describe that may be skipped) and
 * returns the harness, filled in once beforeAll has run.
 */
export function useBridgeHarness(options: { ingest: RouteEntry; agents: Record<string, AgentSetup>; prices?: boolean; routes?: RouteEntry[] }): BridgeHarness {
  const h = {
    agentIds: {},
    send: (agent, payload) => callRoute(options.ingest.handler, { method: "POST", token: h.operator, headers: { "x-hookplane-agent": agent }, body: payload }),
    cliEnv: () => ({ HOOKPLANE_URL: h.server.url, HOOKPLANE_TOKEN: h.operator }),
    async pendingApproval(match, { timeout = 60_000, limit = 50 } = {}) {
      let found: ApprovalRow | undefined;
      await expect.poll(async () => (found = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit })).find(match)), { timeout, interval: 100 }).toBeTruthy();
      return found!;
    },
    // Another person decides: the agent's own credential never decides what its calls asked (own-governance.ts).
    decide: (id, body) => callRoute(decisionRoute.POST, { method: "POST", token: h.approver, params: { id }, body }),
  } as BridgeHarness;

  beforeAll(async () => {
    h.t = await createTestDatabase();
    installDatabase(h.t);
    if (options.prices) await seedPricesIfEmpty(h.t.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
    h.operator = (await addPersonToken(h.t.db, { role: "operator", name: "operator" })).token;
    h.approver = (await addToken(h.t.db, { role: "operator", name: "approver" })).token;
    for (const [name, setup] of Object.entries(options.agents)) {
      const { spec = {}, hooks = [] } = Array.isArray(setup) ? { hooks: setup } : setup;
      const row = (await createAgent(h.t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name, ...spec }) }))!;
      h.agentIds[name] = row.id;
      for (const hook of hooks) await createHook(h.t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...hook, scope: `agent:${row.id}` }), actor: "test" });
    }
    h.server = await startRouteServer([options.ingest, ...(options.routes ?? [])]);
  }, 60_000);

  afterAll(async () => {
    await h.server?.close();
    await stopProcessApprovalWaiter();
    await h.t?.drop();
  });
  return h;
}

/**
 * The payloads of a recorded session (`<fixtures>/<folder>/*.json`, each `{stdin, ...}`), in the
 * order the agent sent them; `read` may add what the file name says.
 */
export function recordedPayloads<P>(fixtures: string, folder: string, read: (stdin: Record<string, unknown>, file: string) => unknown = (stdin) => stdin): P[] {
  const dir = path.join(fixtures, folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => read(JSON.parse(readFileSync(path.join(dir, f), "utf8")).stdin, f) as P);
}

/** The agent's real CLI: the file `envVar` names (if it exists), else `command` on PATH. */
export function findAgentCli(envVar: string, command: string): string | undefined {
  const named = process.env[envVar];
  if (named) return existsSync(named) ? named : undefined;
  const which = spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

export interface AgentCliRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string; output: string }>;
}

export interface AgentWorkspace<Fake> {
  /** The temporary folder projects are made in. */
  work: string;
  /** The fake model API the CLI talks to. */
  fake: Fake;
  /** Runs `bin` in `cwd` with `hookplane` on PATH, pointed at the harness's server (`env` may override). */
  run(bin: string, args: string[], cwd: string, env: Record<string, string>): AgentCliRun;
}

/** Registers a beforeAll that makes the temporary folder, its `bin/hookplane` and the fake model API (closed afterAll). */
export function useAgentWorkspace<Fake extends { close(): Promise<void> }>(h: BridgeHarness, prefix: string, startFake: () => Promise<Fake>): AgentWorkspace<Fake> {
  let binDir = "";
  const workspace = {
    work: "",
    run(bin, args, cwd, env) {
      const child = spawn(bin, args, { cwd, env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, ...h.cliEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      let output = "";
      child.stdout!.on("data", (d) => ((stdout += d), (output += d)));
      child.stderr!.on("data", (d) => ((stderr += d), (output += d)));
      return { child, done: new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr, output }))) };
    },
  } as AgentWorkspace<Fake>;
  beforeAll(async () => {
    workspace.fake = await startFake();
    workspace.work = mkdtempSync(path.join(tmpdir(), prefix));
    binDir = path.join(workspace.work, "bin");
    mkdirSync(binDir);
    writeFileSync(path.join(binDir, "hookplane"), `#!/bin/sh\nexec "${process.execPath}" "${HOOKPLANE_CLI}" "$@"\n`);
    chmodSync(path.join(binDir, "hookplane"), 0o755);
  });
  afterAll(async () => workspace.fake?.close());
  return workspace;
}
