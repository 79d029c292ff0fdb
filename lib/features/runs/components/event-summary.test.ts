import { describe, expect, it } from "vitest";
import { summarizeEvent } from "@/lib/core/hooks/event-summary";

describe("summarizeEvent", () => {
  it("turn.end says what the agent answered, and when a stop hook had sent it back", () => {
    expect(summarizeEvent("turn.end", { stopHookActive: false, response: "Done." })).toBe("Done.");
    expect(summarizeEvent("turn.end", { stopHookActive: true, response: "Tests pass." })).toBe("answered again after a stop hook: Tests pass.");
  });
});
