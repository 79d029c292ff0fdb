/**
 * What a coding agent's own OpenTelemetry logs say about its sessions' hooks, apart from the hooks
 * themselves: Claude Code logs `hook_registered` once per configured hook at start (its hook
 * inventory), `hook_execution_start` for each hook run, and `tool_result` for each tool call, all
 * with `session.id` (recorded from Claude Code 2.1.197 and 2.1.332; docs/coding-agents.md).
 * A session whose telemetry arrives but whose hooks never reach Hookplane ran unguarded; the
 * telemetry is the second witness that notices it.
 *
 * OTLP/HTTP JSON only (`OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=http/json`): the body is read leniently,
 * since exporters add fields freely, and anything not understood is counted, never an error.
 */
import { z } from "zod";
import type { RegisteredHook } from "@/db/schema";

const anyValue: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      boolValue: z.boolean().optional(),
      intValue: z.union([z.string(), z.number()]).optional(),
      doubleValue: z.number().optional(),
      arrayValue: z.object({ values: z.array(anyValue).optional() }).optional(),
    })
    .loose(),
);
const attributes = z.array(z.object({ key: z.string(), value: anyValue.optional() }).loose()).max(1000).optional();

export const otlpLogsSchema = z
  .object({
    resourceLogs: z
      .array(
        z
          .object({
            resource: z.object({ attributes }).loose().optional(),
            scopeLogs: z
              .array(
                z
                  .object({
                    logRecords: z.array(z.object({ attributes, body: anyValue.optional() }).loose()).max(10_000).optional(),
                  })
                  .loose(),
              )
              .optional(),
          })
          .loose(),
      )
      .max(1000),
  })
  .loose();
export type OtlpLogs = z.infer<typeof otlpLogsSchema>;

/** What one batch says about one session. */
export interface SessionTelemetry {
  codingAgent: "claude-code";
  sessionId: string;
  cliVersion: string;
  registered: RegisteredHook[];
  /** The session has gone past its start, so its inventory is whole (an empty one: no hooks). */
  inventoryComplete: boolean;
  safeMode: boolean;
  toolCalls: number;
  hookRuns: number;
}

/** Events Claude Code logs only after it has registered its hooks. */
const AFTER_START = new Set(["user_prompt", "api_request", "tool_decision", "tool_result", "hook_execution_start", "assistant_response"]);

function plain(value: unknown): unknown {
  const v = value as { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number } | undefined;
  return v?.stringValue ?? v?.boolValue ?? (v?.intValue !== undefined ? Number(v.intValue) : v?.doubleValue);
}

function attributeMap(list: { key: string; value?: unknown }[] | undefined): Map<string, unknown> {
  return new Map((list ?? []).map((a) => [a.key, plain(a.value)]));
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value.slice(0, 300) : undefined);

/** Each Claude Code session the batch speaks of, and how many records it did not understand. */
export function sessionsInLogs(logs: OtlpLogs): { sessions: SessionTelemetry[]; ignored: number } {
  const sessions = new Map<string, SessionTelemetry>();
  let ignored = 0;
  for (const resourceLog of logs.resourceLogs) {
    const resource = attributeMap(resourceLog.resource?.attributes);
    const records = (resourceLog.scopeLogs ?? []).flatMap((scope) => scope.logRecords ?? []);
    if (resource.get("service.name") !== "claude-code") {
      ignored += records.length;
      continue;
    }
    for (const record of records) {
      const at = attributeMap(record.attributes);
      const sessionId = text(at.get("session.id"));
      const name = text(at.get("event.name")) ?? text(plain(record.body))?.replace(/^claude_code\./, "");
      if (!sessionId || !name) {
        ignored += 1;
        continue;
      }
      let session = sessions.get(sessionId);
      if (!session) {
        session = { codingAgent: "claude-code", sessionId, cliVersion: text(resource.get("service.version")) ?? "", registered: [], inventoryComplete: false, safeMode: false, toolCalls: 0, hookRuns: 0 };
        sessions.set(sessionId, session);
      }
      if (at.get("safe_mode") === "true" || at.get("safe_mode") === true) session.safeMode = true;
      if (AFTER_START.has(name)) session.inventoryComplete = true;
      if (name === "tool_result") session.toolCalls += 1;
      else if (name === "hook_execution_start") session.hookRuns += 1;
      else if (name === "hook_registered") {
        const event = text(at.get("hook_event"));
        if (!event) continue;
        const matcher = text(at.get("hook_matcher"));
        session.registered.push({ event, type: text(at.get("hook_type")) ?? "", source: text(at.get("hook_source")) ?? "", ...(matcher && { matcher }) });
      }
    }
  }
  return { sessions: [...sessions.values()], ignored };
}

/** The hook events without which a session's tool calls are not checked. */
export const GATING_EVENTS = ["PreToolUse"] as const;
