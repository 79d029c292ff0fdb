import { describe, expect, it } from "vitest";
import { importConfig } from "./index";
import { fixtureFolder } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

/** The fixture modules as an `agents/hooks/` folder (stored as .ts.txt so tsc leaves them alone). */
const folder = Object.fromEntries(
  Object.entries(fixtureFolder("standard-agents")).map(([file, source]) => [file.replace(/^standard-agents\//, "agents/hooks/").replace(/\.txt$/, ""), source]),
);

describe("standard-agents import", () => {
  it("each defineHook becomes a code hook on the canonical event that fits, fail open", () => {
    const result = importConfig("standard-agents", folder, { agent: "support" });
    expect(result.hooks).toEqual([
      { id: "redact_secrets", dialect: "standard-agents", event: "model.pre", scope: "agent:support", action: { type: "code", module: "redact_secrets" }, onFailure: "continue" },
      { id: "welcome_thread", dialect: "standard-agents", event: "session.start", scope: "agent:support", action: { type: "code", module: "welcome_thread" }, onFailure: "continue" },
      { id: "soften_tool_errors", dialect: "standard-agents", event: "tool.post", scope: "agent:support", when: "isError", action: { type: "code", module: "soften_tool_errors" }, onFailure: "continue" },
    ]);
  });

  it("warns about transform types and types without a canonical event", () => {
    const result = importConfig("standard-agents", folder, { agent: "support" });
    expect(result.warnings).toEqual([
      { path: 'files["agents/hooks/message-log.ts"].type', message: expect.stringMatching(/^after_create_message has no Hookplane event.*\(line 3\)$/), enforcement: "not_imported" },
      { path: 'files["agents/hooks/redact-history.ts"].type', message: expect.stringMatching(/prefilter_llm_history is a transform hook/) },
      { path: 'files["agents/hooks/tool-failure.ts"].type', message: expect.stringMatching(/after_tool_call_failure is a transform hook/) },
    ]);
  });

  it("takes the API's {files} JSON and one module's source; global scope gets a warning", () => {
    const json = importConfig("standard-agents", JSON.stringify({ files: { "a.ts": folder["agents/hooks/thread-created.ts"] } }));
    expect(json.hooks).toEqual([{ id: "welcome_thread", dialect: "standard-agents", event: "session.start", scope: "global", action: { type: "code", module: "welcome_thread" }, onFailure: "continue" }]);
    expect(json.warnings.map((w) => w.path)).toEqual([""]);
    const single = importConfig("standard-agents", folder["agents/hooks/tool-failure.ts"]);
    expect(single.hooks.map((h) => h.id)).toEqual(["soften_tool_errors"]);
  });

  it("after_tool_call_success binds to successful tool calls only", () => {
    const result = importConfig("standard-agents", "export default defineHook({ type: 'after_tool_call_success', id: 'ok_hook', execute: async () => null })");
    expect(result.hooks[0]).toMatchObject({ event: "tool.post", when: "isError: /^false$/" });
  });
});

describe("standard-agents import: malformed input", () => {
  it("rejects ids that are not literals, not snake_case, or defined twice; suggests the nearest type", () => {
    const error = parseError(() =>
      importConfig("standard-agents", {
        "a.ts": "export default defineHook({ type: 'after_tool_call_success', id: HOOK_ID, execute() {} })",
        "b.ts": "export default defineHook({ type: 'after_tool_call_success', id: 'Bad-Id', execute() {} })",
        "c.ts": "export default defineHook({ type: 'after_tool_call_sucess', id: 'typo', execute() {} })",
        "d.ts": "export default defineHook({ type: 'filter_messages', id: 'twice', execute() {} })",
        "e.ts": "export default defineHook({ type: 'filter_messages', id: 'twice', execute() {} })",
      }),
    );
    expect(error.issues).toEqual([
      { path: 'files["a.ts"].id', message: expect.stringMatching(/must be a string literal/) },
      { path: 'files["b.ts"].id', message: expect.stringMatching(/not snake_case/) },
      { path: 'files["c.ts"].type', message: expect.stringContaining('did you mean "after_tool_call_success"') },
      { path: 'files["e.ts"].id', message: expect.stringMatching(/defined twice/) },
    ]);
  });

  it("reports files without defineHook and a malformed {files} body", () => {
    const result = importConfig("standard-agents", { "util.ts": "export const x = 1", "h.ts": "export default defineHook({type: 'filter_messages', id: 'f', execute: (c, m) => m})" });
    expect(result.warnings[0]).toEqual({ path: 'files["util.ts"]', message: expect.stringMatching(/no defineHook/) });
    expect(parseError(() => importConfig("standard-agents", '{"files": {"a.ts": 1}}')).issues).toEqual([{ path: 'files["a.ts"]', message: "expected the file's source text" }]);
  });
});
