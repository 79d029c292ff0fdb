/**
 * What the server allows a project's hooks (lib/core/hooks/enforcement.ts): whether running code is
 * on, and which secrets exist. Read once per request that lists hooks.
 */
import type { Db } from "@/db/client";
import type { HookResource } from "@/db/queries/hooks";
import { enforcementOf, type Enforcement, type EnforcementContext } from "@/lib/core/hooks/enforcement";
import { listSecretsWithSources } from "@/lib/features/secrets/secret-store";
import { codeExecutionStatus } from "@/lib/platform/security/code-execution";

export async function loadEnforcementContext(db: Db, projectId: string): Promise<EnforcementContext> {
  const secrets = await listSecretsWithSources(db, projectId);
  return { codeExecution: codeExecutionStatus().enabled, secrets: new Set(secrets.map((s) => s.name)) };
}

/** A hook resource with whether it can do what it says here. */
export function withEnforcement(hook: HookResource, context: EnforcementContext): HookResource & { enforcement: Enforcement } {
  return { ...hook, enforcement: enforcementOf({ ...hook.spec, enabled: hook.enabled && hook.spec.enabled !== false, version: hook.version }, context) };
}
