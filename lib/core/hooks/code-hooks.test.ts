import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  createCodeHookRegistry,
  defineHook,
  loadCodeHooks,
  resolveCodeHookIds,
  runEventHooks,
  runTransformHooks,
} from "./code-hooks";
import { createHookRuntime } from "./runtime";
import { hook, toolPre } from "./testing/fakes";

const hooksModule = path.resolve(import.meta.dirname, "code-hooks.ts");

describe("defineHook", () => {
  it("accepts every Standard Agents type and rejects a bad id or type", () => {
    expect(defineHook({ type: "after_thread_created", id: "on_thread", execute: () => {} }).id).toBe("on_thread");
    expect(() => defineHook({ type: "filter_messages", id: "Bad-Id", execute: (_c, m) => m })).toThrow(/snake_case/);
    expect(() => defineHook({ type: "nope" as never, id: "x", execute: (() => {}) as never })).toThrow(/unknown type "nope"/);
  });
});

describe("loadCodeHooks", () => {
  it("imports .mjs and .ts modules from the folder and reports broken ones", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "hooks-dir-"));
    await writeFile(
      path.join(dir, "redact.mjs"),
      `export default { type: "before_create_message", id: "redact_emails", execute: (ctx, m) => ({ ...m, content: m.content.replace(/\\S+@\\S+/g, "[email]") }) };`,
    );
    await writeFile(
      path.join(dir, "audit.ts"),
      `import { defineHook } from ${JSON.stringify(hooksModule)};\nexport default defineHook({ type: "after_create_message", id: "audit_messages", execute: async () => {} });`,
    );
    await writeFile(path.join(dir, "broken.mjs"), `export default { id: "x" };`);
    await writeFile(path.join(dir, "notes.txt"), "not a hook");
    const { registry, errors } = await loadCodeHooks(dir);
    expect(registry.ids().sort()).toEqual(["audit_messages", "redact_emails"]);
    expect(errors).toEqual([{ file: "broken.mjs", message: expect.stringContaining("unknown type undefined") }]);
    const { data } = await runTransformHooks(registry, "before_create_message", ["redact_emails"], { content: "mail ada@example.com" }, {});
    expect(data).toEqual({ content: "mail [email]" });
  });

  it("reports a missing folder instead of throwing", async () => {
    const { registry, errors } = await loadCodeHooks("/nonexistent/hooks/dir");
    expect(registry.ids()).toEqual([]);
    expect(errors[0].message).toContain("ENOENT");
  });
});

describe("transforms and event hooks", () => {
  const appendA = defineHook({ type: "filter_messages", id: "append_a", execute: (_c, msgs) => msgs.map((m) => ({ ...m, text: `${m.text}-a` })) });
  const appendB = defineHook({ type: "filter_messages", id: "append_b", execute: async (_c, msgs) => msgs.map((m) => ({ ...m, text: `${m.text}-b` })) });
  const boom = defineHook({ type: "filter_messages", id: "boom", execute: () => { throw new Error("bad hook"); } });
  const hang = defineHook({ type: "filter_messages", id: "hang", execute: () => new Promise<never>(() => {}) });
  const registry = createCodeHookRegistry([appendA, appendB, boom, hang]);

  it("chains in the declared order", async () => {
    const { data } = await runTransformHooks(registry, "filter_messages", ["append_a", "append_b"], [{ text: "hi" }], {});
    expect(data).toEqual([{ text: "hi-a-b" }]);
    const reversed = await runTransformHooks(registry, "filter_messages", ["append_b", "append_a"], [{ text: "hi" }], {});
    expect(reversed.data).toEqual([{ text: "hi-b-a" }]);
  });

  it("keeps the data a throwing or hanging hook was given, and goes on", async () => {
    const logged: string[] = [];
    const logger = { warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };
    const { data, errors } = await runTransformHooks(registry, "filter_messages", ["append_a", "boom", "hang", "append_b", "missing"], [{ text: "hi" }], {}, undefined, {
      logger,
      timeoutMs: 50,
    });
    expect(data).toEqual([{ text: "hi-a-b" }]);
    expect(errors).toEqual([
      { hookId: "boom", message: "bad hook" },
      { hookId: "hang", message: "timed out after 50 ms" },
    ]);
    expect(logged).toContain("code hook missing is referenced but not installed");
  });

  it("passes the tool call before the result, and null removes the result", async () => {
    const seen: unknown[] = [];
    const drop = defineHook({
      type: "after_tool_call_success",
      id: "drop_secrets",
      execute: (_ctx, call, result) => (seen.push(call), String(result.content).includes("secret") ? null : result),
    });
    const reg = createCodeHookRegistry([drop]);
    const call = { name: "read", input: {} };
    expect((await runTransformHooks(reg, "after_tool_call_success", ["drop_secrets"], { content: "secret" }, {}, call)).data).toBeNull();
    expect(seen).toEqual([call]);
  });

  it("runs event hooks and logs their errors", async () => {
    const seen: unknown[] = [];
    const reg = createCodeHookRegistry([
      defineHook({ type: "after_subagent_created", id: "track", execute: (_c, sub) => void seen.push(sub) }),
      defineHook({ type: "after_subagent_created", id: "broken", execute: () => { throw new Error("nope"); } }),
    ]);
    const { errors } = await runEventHooks(reg, "after_subagent_created", ["track", "broken"], { runId: "r" }, { name: "child" });
    expect(seen).toEqual([{ name: "child" }]);
    expect(errors).toEqual([{ hookId: "broken", message: "nope" }]);
  });

  it("scopes like Standard Agents: prompt hooks override agent hooks", () => {
    expect(resolveCodeHookIds({ prompt: ["a"], agent: ["b"] })).toEqual(["a"]);
    expect(resolveCodeHookIds({ prompt: [], agent: ["b"] })).toEqual([]);
    expect(resolveCodeHookIds({ agent: ["b"] })).toEqual(["b"]);
    expect(resolveCodeHookIds({})).toEqual([]);
  });
});

describe("code action in a hook spec", () => {
  const guard = defineHook({
    type: "after_create_message",
    id: "no_deletes",
    execute: (_ctx, context) => (context.toolName === "delete_file" ? { continue: false, reason: "deletes need a ticket" } : undefined),
  });
  const registry = createCodeHookRegistry([guard]);
  const spec = hook({ id: "guard", event: "tool.pre", action: { type: "code", module: "no_deletes" } });

  it("calls the code hook with the event context and reads its decision", async () => {
    const runtime = createHookRuntime({ allowCodeExecution: true, codeHooks: registry });
    expect(await runtime.dispatch([spec], toolPre("delete_file"))).toMatchObject({ verdict: "block", reason: "deletes need a ticket" });
    expect((await runtime.dispatch([spec], toolPre("read_file"))).verdict).toBe("allow");
  });

  it("an uninstalled module fails under onFailure", async () => {
    const runtime = createHookRuntime({ allowCodeExecution: true, codeHooks: createCodeHookRegistry([]) });
    expect(await runtime.dispatch([spec], toolPre("x"))).toMatchObject({ verdict: "block", reason: "code hook no_deletes is not installed in the hooks folder" });
  });
});
