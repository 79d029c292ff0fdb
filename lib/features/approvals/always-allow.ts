/**
 * "Approve and always allow this": besides approving, write an allow rule so the same call is
 * not asked again. The rule is a hook of its own on tool.pre (`action: allow` with the exact tool
 * input, a matcher on the tool's name), placed just before the approve hook that asked, in that
 * hook's scope (restricted to the run's agent by `when` when that scope is global). It starts in
 * shadow mode: the ledger shows what it would have let through, and a person switches it to
 * enforce in the editor once they trust it. Choosing it again for the same call writes a new
 * version only if something changed. Created through the hook service, so it is audited and in
 * the hook's versions like any edit.
 */
import type { Db } from "@/db/client";
import type { ApprovalRow } from "@/db/queries/approvals";
import { findHookByKey, listHooks, listHooksForScopes, reorderHooks, type HookResource } from "@/db/queries/hooks";
import { getRun } from "@/db/queries/runs";
import { toolCallText } from "@/lib/core/hooks/notice-text";
import { parseHookSpec, type HookSpec } from "@/lib/core/hooks/spec";
import { createHookAudited, replaceHookAudited } from "@/lib/features/hooks/hook-service";
import { AppError, validationError } from "@/lib/platform/api/app-error";
import type { Principal } from "@/lib/platform/auth/roles";
import { toolInputHash } from "./decision-links";

/** A matcher for exactly this tool name: the name itself, or an anchored regex when it has other characters. */
function exactMatcher(toolName: string): string {
  return /^[\w-]+$/.test(toolName) ? toolName : toolName.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 40) || "tool";
}

export async function writeAllowRule(
  tx: Db,
  principal: Principal,
  approval: ApprovalRow & { agentId: string; agentName: string },
): Promise<HookResource> {
  if (!approval.toolName) throw AppError.badRequest("This approval is not about a tool call, so there is nothing to always allow");
  const run = await getRun(tx, { projectId: approval.projectId, id: approval.runId });
  const scopes = ["global", `agent:${approval.agentId}`, ...(run?.scheduleId ? [`schedule:${run.scheduleId}`] : [])];
  // The rule is the project's: it goes before an asker of the project's own (an instance-wide one runs first anyway).
  const asker = (await listHooksForScopes(tx, { projectId: principal.projectId, scopes })).find(
    (h) => h.projectId !== null && h.key === approval.hookKey && h.event === "tool.pre",
  );
  const scope = asker?.scope ?? `agent:${approval.agentId}`;
  const parsed = parseHookSpec({
    id: `allow-${slug(approval.toolName)}-${toolInputHash(approval.toolInput).slice(0, 10).replace(/[^A-Za-z0-9]/g, "x")}`,
    name: `Always allow ${toolCallText(approval.toolName, approval.toolInput)}`.slice(0, 200),
    event: "tool.pre",
    scope,
    mode: "shadow",
    matcher: exactMatcher(approval.toolName),
    ...(scope === "global" && { when: `agentName: /^${approval.agentName.replace(/[\\^$.|?*+()[\]{}/]/g, (c) => `\\${c}`)}$/` }),
    action: {
      type: "allow",
      input: approval.toolInput ?? null,
      reason: `approved by ${principal.label}, who chose to always allow it (approval ${approval.id})`.slice(0, 500),
    },
  });
  if (!parsed.success) throw validationError(parsed.error);
  const spec: HookSpec = parsed.data;
  const existing = await findHookByKey(tx, { projectId: principal.projectId, scope, key: spec.id });
  if (existing) return replaceHookAudited(tx, principal, existing.id, { ...spec, mode: (existing.spec as { mode?: HookSpec["mode"] }).mode ?? "shadow" });
  const created = await createHookAudited(tx, principal, spec);
  if (asker) {
    // Just before the hook that asked, so it is considered first.
    const order = (await listHooks(tx, { projectId: principal.projectId, own: true, scope })).map((h) => h.id).filter((id) => id !== created.id);
    order.splice(order.indexOf(asker.id), 0, created.id);
    await reorderHooks(tx, { projectId: principal.projectId, scope, ids: order });
  }
  return created;
}
