/**
 * Standard Agents' `defineHook` code hooks: transform hooks chain (each gets the previous result),
 * event hooks observe; a throwing hook is logged and the data it was given is kept; a prompt's hook
 * list replaces the agent's; all nine documented types plus the three the README adds.
 */
import { describe, expect, it } from "vitest";
import {
  CODE_HOOK_TYPES,
  createCodeHookRegistry,
  defineHook,
  resolveCodeHookIds,
  runEventHooks,
  runTransformHooks,
  type Message,
} from "../code-hooks";

const dropSystem = defineHook({ type: "filter_messages", id: "drop_system", execute: (_ctx, messages) => messages.filter((m) => m.role !== "system") });
const lastTwo = defineHook({ type: "filter_messages", id: "last_two", execute: async (_ctx, messages) => messages.slice(-2) });
const explode = defineHook({
  type: "filter_messages",
  id: "explode",
  execute: () => {
    throw new Error("hook bug");
  },
});
const stamp = defineHook({ type: "before_create_message", id: "stamp", execute: (ctx, message) => ({ ...message, runId: ctx.runId }) });
const renameUpdates = defineHook({ type: "before_update_message", id: "rename", execute: (_ctx, id, updates) => ({ ...updates, note: `edited ${id}` }) });
const trimResult = defineHook({ type: "before_store_tool_result", id: "trim", execute: (_ctx, call, result) => ({ ...result, content: `${call.name}: ${String(result.content).slice(0, 5)}` }) });
const softenFailure = defineHook({ type: "after_tool_call_failure", id: "soften", execute: (_ctx, _call, result) => ({ ...result, error: `retry later (${result.error})` }) });
const registry = createCodeHookRegistry([dropSystem, lastTwo, explode, stamp, renameUpdates, trimResult, softenFailure]);

const history: Message[] = [
  { role: "system", content: "s" },
  { role: "user", content: "a" },
  { role: "assistant", content: "b" },
  { role: "user", content: "c" },
];

describe("Standard Agents conformance", () => {
  it("knows all twelve hook types", () => {
    expect(CODE_HOOK_TYPES).toHaveLength(12);
    expect(CODE_HOOK_TYPES).toEqual(expect.arrayContaining(["after_thread_created", "after_subagent_created", "after_system_message"]));
  });

  it("transform hooks chain in the declared order", async () => {
    const { data } = await runTransformHooks(registry, "filter_messages", ["drop_system", "last_two"], history, {});
    expect(data.map((m) => m.content)).toEqual(["b", "c"]);
    const withSystemLast = [...history.slice(1), { role: "system", content: "late" }];
    expect((await runTransformHooks(registry, "filter_messages", ["last_two", "drop_system"], withSystemLast, {})).data.map((m) => m.content)).toEqual(["c"]);
    expect((await runTransformHooks(registry, "filter_messages", ["drop_system", "last_two"], withSystemLast, {})).data.map((m) => m.content)).toEqual(["b", "c"]);
  });

  it("a throwing hook is logged and its input is kept; the framework does not crash", async () => {
    const logged: string[] = [];
    const { data, errors } = await runTransformHooks(registry, "filter_messages", ["drop_system", "explode", "last_two"], history, {}, undefined, {
      logger: { warn() {}, error: (m) => logged.push(m) },
    });
    expect(data.map((m) => m.content)).toEqual(["b", "c"]);
    expect(errors).toEqual([{ hookId: "explode", message: "hook bug" }]);
    expect(logged[0]).toContain("code hook explode (filter_messages) threw");
  });

  it("each transform type gets its documented arguments", async () => {
    expect((await runTransformHooks(registry, "before_create_message", ["stamp"], { content: "x" }, { runId: "r9" })).data).toEqual({ content: "x", runId: "r9" });
    expect((await runTransformHooks(registry, "before_update_message", ["rename"], { content: "y" }, {}, "msg-1")).data).toEqual({ content: "y", note: "edited msg-1" });
    expect((await runTransformHooks(registry, "before_store_tool_result", ["trim"], { content: "long output" }, {}, { name: "grep" })).data).toEqual({ content: "grep: long " });
    expect((await runTransformHooks(registry, "after_tool_call_failure", ["soften"], { error: "503" }, {}, { name: "fetch" })).data).toEqual({ error: "retry later (503)" });
  });

  it("only hooks of the running type run, even when listed", async () => {
    const { data } = await runTransformHooks(registry, "before_create_message", ["drop_system", "stamp"], { content: "x" }, { runId: "r" });
    expect(data).toEqual({ content: "x", runId: "r" });
  });

  it("a prompt's hooks replace the agent's; nothing declared, nothing runs", async () => {
    const ids = resolveCodeHookIds({ prompt: ["last_two"], agent: ["drop_system"] });
    expect((await runTransformHooks(registry, "filter_messages", ids, history, {})).data.map((m) => m.content)).toEqual(["b", "c"]);
    const agentOnly = resolveCodeHookIds({ agent: ["drop_system"] });
    expect((await runTransformHooks(registry, "filter_messages", agentOnly, history, {})).data).toHaveLength(3);
    expect((await runTransformHooks(registry, "filter_messages", resolveCodeHookIds({}), history, {})).data).toBe(history);
  });

  it("event hooks observe the created message", async () => {
    const seen: Message[] = [];
    const reg = createCodeHookRegistry([defineHook({ type: "after_create_message", id: "analytics", execute: (_ctx, message) => void seen.push(message) })]);
    await runEventHooks(reg, "after_create_message", ["analytics"], {}, { id: "m1", content: "hi" });
    expect(seen).toEqual([{ id: "m1", content: "hi" }]);
  });
});
