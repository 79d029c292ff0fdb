import { expect, test } from "vitest";
import { agentFromForm } from "./agent-form-data";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";

function form(fields: Record<string, string>) {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
}

test("the Code hooks field is a comma-separated list of snake_case ids; empty means none", () => {
  const { value } = agentFromForm(form({ name: "a", codeHooks: " redact_tokens, trim_history ,," }));
  expect(value.codeHooks).toEqual(["redact_tokens", "trim_history"]);
  expect(agentSpecSchema.parse(value).codeHooks).toEqual(["redact_tokens", "trim_history"]);
  expect(agentFromForm(form({ name: "a", codeHooks: "  " })).value.codeHooks).toBeUndefined();
  const bad = agentSpecSchema.safeParse(agentFromForm(form({ name: "a", codeHooks: "Redact-Tokens" })).value);
  expect(bad.success).toBe(false);
  expect(bad.error?.issues[0].path).toEqual(["codeHooks", 0]);
});
