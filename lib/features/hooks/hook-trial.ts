/**
 * Trying hooks before enabling them (`POST /api/v1/hooks/test`): the same runtime the agent loop
 * uses, on an event the person gives or picks from a past run, returning the verdict, output and
 * ledger it would produce. Nothing is stored; the hooks' own actions (a webhook, a command) do run.
 * Nobody is asked for an approval: the hook's timeout policy answers, marked as such.
 */
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Db } from "@/db/client";
import { appendMemoryNote, readMemoryNote } from "@/db/queries/memory-notes";
import { AppError } from "@/lib/platform/api/app-error";
import type { Principal } from "@/lib/platform/auth/roles";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { EVENT_NAMES } from "@/lib/core/hooks/events";
import type { ApprovalPort } from "@/lib/core/hooks/ports";
import { actionRunsCode } from "@/lib/core/hooks/trust";
import type { HookRuntime } from "@/lib/core/hooks/runtime";
import { createRunHookRuntime } from "./hook-runtime-factory";
import { ensureWorkspacesDir } from "@/lib/platform/security/code-execution";
import { createToolRegistry } from "@/lib/features/tools/tool-registry";
import { describeCodeAction } from "./hook-service";
import { hookEvent } from "@/lib/core/hooks/event";
import type { HookTrialRequest } from "./schema";

const askNobody: ApprovalPort = {
  async request(req) {
    return {
      decision: req.onTimeout === "allow" ? "approve" : "deny",
      timedOut: true,
      reason: `hook test: nobody is asked; onTimeout "${req.onTimeout}" answers`,
    };
  },
};

/** Trying a hook runs it: what runs code is an admin's to try too (the switch still applies). */
export function assertMayRun(principal: Principal, hooks: readonly { id?: string; action: { type: string; tool?: unknown } }[]) {
  const runsCode = hooks.find((h) => actionRunsCode(h.action));
  if (runsCode && !roleAtLeast(principal.role, "admin")) {
    throw AppError.forbidden(`Only admins may run ${describeCodeAction(runsCode.action)}, even in a test (hook ${runsCode.id ?? "?"}). You are ${principal.role}.`);
  }
}

/**
 * A runtime for trials in a project (its secrets, its memory notes): no ledger rows stored, nobody
 * asked, tools in a throwaway workspace.
 */
export async function withTrialRuntime<T>(db: Db, projectId: string, work: (runtime: HookRuntime, workspaceDir: string) => Promise<T>): Promise<T> {
  const workspaceDir = await mkdtemp(path.join(ensureWorkspacesDir(), "trial-"));
  try {
    const runtime = createRunHookRuntime({
      db,
      projectId,
      approvals: askNobody,
      tools: createToolRegistry({
        workspaceDir,
        memory: {
          read: (name) => readMemoryNote(db, { projectId, name }),
          append: (name, text) => appendMemoryNote(db, { projectId, name, text }),
        },
      }),
      persistLedger: false,
    });
    return await work(runtime, workspaceDir);
  } finally {
    await rm(workspaceDir, { recursive: true, force: true });
  }
}

/** Scoped hooks only run for their own agent or schedule; a trial runs them as written, globally. */
export function asTrialHooks<H extends { scope?: string }>(hooks: readonly H[]) {
  // A person's or a group's rule keeps its scope: whose call it is decides whether it holds.
  return hooks.map((h) => ({ ...h, scope: h.scope?.startsWith("person:") || h.scope?.startsWith("group:") ? h.scope : "global", enabled: true }));
}

export async function tryHooks(db: Db, principal: Principal, body: HookTrialRequest) {
  const hooks = body.hooks ?? [body.hook!];
  assertMayRun(principal, hooks);
  const { type, agentName, agentId, metadata, vars, ...data } = body.event;
  return withTrialRuntime(db, principal.projectId, async (runtime, workspaceDir) => {
    const result = await runtime.dispatch(asTrialHooks(hooks), hookEvent({
      type: type as (typeof EVENT_NAMES)[number],
      runId: "hook-test",
      agentId,
      agentName: agentName ?? "hook-test",
      ts: Date.now(),
      data,
      metadata,
      vars,
      workspaceDir,
      triggerType: "hook-test",
    }));
    return { ...result, ledger: result.ledger.map((entry, i) => ({ ...entry, scope: hooks[i]?.scope ?? entry.scope })) };
  });
}
