import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import { expect, test } from "vitest";
import * as copied from "./semconv";

/** Backends' own names, not (or not yet) in the conventions. */
const NOT_IN_SEMCONV = ["ATTR_GEN_AI_USAGE_COST", "ATTR_OPENINFERENCE_SPAN_KIND"];

test("the copied GenAI names are the installed semantic conventions' own", () => {
  const registry = incubating as unknown as Record<string, string>;
  for (const [name, value] of Object.entries(copied)) {
    if (NOT_IN_SEMCONV.includes(name)) continue;
    expect(registry[name], name).toBe(value);
  }
});
