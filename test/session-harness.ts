/**
 * Builds the ports of runAgentSession for tests: a recorded event sink, a dispatch of plain
 * closures, a provider spy, a temporary workspace with the real tool registry.
 */
import { mkdtempSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { agentSpecSchema, type AgentSpecInput, type ScriptTurn } from "@/lib/core/agent/agent-spec";
import type { EventName } from "@/lib/core/hooks/events";
import { plainShell } from "@/lib/core/hooks/ports";
import { createToolRegistry } from "@/lib/features/tools/tool-registry";
import type { ToolRegistry } from "@/lib/core/agent/tool-types";
import { afterEach } from "vitest";
import type { AgentSessionOptions, AgentWithId, DispatchResult, LifecycleEvent } from "../lib/core/agent/loop-ports";
import type { ModelProvider, ModelRequest } from "../lib/core/agent/providers/model-provider";
import { createScriptedProvider } from "../lib/core/agent/providers/scripted-provider";

export function makeAgent(input: Partial<AgentSpecInput> & { script?: ScriptTurn[] }, overrides: Partial<AgentWithId> = {}): AgentWithId {
  const spec = agentSpecSchema.parse({ name: "tester", tools: ["*"], ...input });
  return { id: `agent_${spec.name}`, ...spec, ...overrides };
}

/** Records every request a provider receives (a deep copy: the loop keeps appending to its array). */
export function spyProvider(inner: ModelProvider): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    complete(request) {
      requests.push({ ...request, messages: structuredClone(request.messages), signal: undefined });
      return inner.complete(request);
    },
  };
}

export interface RecordedEvent {
  type: string;
  data: Record<string, unknown>;
}

export type DispatchRule = (event: LifecycleEvent) => DispatchResult | undefined | Promise<DispatchResult | undefined>;

export interface Harness {
  workspace: string;
  tools: ToolRegistry;
  events: RecordedEvent[];
  dispatched: LifecycleEvent[];
  types(): string[];
  lifecycle(): RecordedEvent[];
  count(type: EventName | string): number;
  options<Extra extends Partial<AgentSessionOptions> = object>(
    agent: AgentWithId,
    extra?: Extra,
  ): AgentSessionOptions & { provider: ModelProvider & { requests: ModelRequest[] } } & Extra;
  /** Later rules win; a rule returning undefined falls through to "allow". */
  onDispatch(rule: DispatchRule): void;
  cleanup(): Promise<void>;
}

export const LIFECYCLE = new Set([
  "session.start", "user.prompt.submit", "model.pre", "model.post", "tool.pre", "tool.post", "turn.end",
  "approval.requested", "approval.settled", "agent.start", "agent.stop", "error", "session.end",
]);

/** $1 per million tokens of any kind: easy arithmetic in assertions. */
export const costPerToken = (_model: string, usage: { inputTokens: number; outputTokens: number }) =>
  (usage.inputTokens + usage.outputTokens) / 1_000_000;

export function createHarness(): Harness {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-loop-")));
  // The loop's own tests: a plain shell (the sandbox and its switch are lib/platform/security's tests).
  const tools = createToolRegistry({ workspaceDir: workspace, shellTimeoutMs: 10_000, shell: { refusal: undefined, launcher: plainShell } });
  const events: RecordedEvent[] = [];
  const dispatched: LifecycleEvent[] = [];
  const rules: DispatchRule[] = [];
  return {
    workspace,
    tools,
    events,
    dispatched,
    types: () => events.map((e) => e.type),
    lifecycle: () => events.filter((e) => LIFECYCLE.has(e.type)),
    count: (type) => events.filter((e) => e.type === type).length,
    onDispatch: (rule) => rules.unshift(rule),
    options(agent, extra) {
      const options: AgentSessionOptions = {
        agent,
        runId: "run_1",
        prompt: "do the thing",
        provider: spyProvider(createScriptedProvider(agent.script)),
        tools,
        emit: (type, data) => {
          events.push({ type, data: structuredClone(data) });
        },
        dispatch: async (event) => {
          dispatched.push(event);
          for (const rule of rules) {
            const result = await rule(event);
            if (result) return result;
          }
          return { verdict: "allow" };
        },
        costOf: costPerToken,
        ...extra,
      };
      return options as never;
    },
    cleanup: () => rm(workspace, { recursive: true, force: true }),
  };
}

/**
 * A `fresh()` that hands each test its own harness and cleans them all up after each test.
 * Call at the top level of a test file.
 */
export function useFreshHarnesses(): () => Harness {
  const harnesses: Harness[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.cleanup()));
  });
  return () => {
    const h = createHarness();
    harnesses.push(h);
    return h;
  };
}
