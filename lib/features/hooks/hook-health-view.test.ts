import { describe, expect, it } from "vitest";
import { healthText, healthView, healthWindowStart } from "./hook-health-view";

const counts = (over: Partial<Parameters<typeof healthView>[0] & object> = {}) => ({ fired: 0, blocked: 0, failed: 0, failingNow: false, lastError: null, lastErrorAt: null, ...over });

describe("a hook's health at a glance", () => {
  it("a hook whose latest run failed is failing, whatever verdict its onFailure gave", () => {
    const view = healthView(counts({ fired: 2, failed: 2, failingNow: true, lastError: "the secret SLACK_BOT_TOKEN is not set", lastErrorAt: new Date("2026-01-01T10:00:00Z") }));
    expect(view).toEqual({ state: "failing", fired: 2, blocked: 0, failed: 2, lastError: "the secret SLACK_BOT_TOKEN is not set", lastErrorAt: "2026-01-01T10:00:00.000Z", windowDays: 7 });
    expect(healthText(view)).toBe("failing: 2 of 2 failed");
  });
  it("one that failed but ran fine since is flaky; one that never failed is ok; one that did not run is idle", () => {
    expect(healthText(healthView(counts({ fired: 5, failed: 1, lastError: "refused" })))).toBe("1 of 5 failed");
    expect(healthView(counts({ fired: 5, failed: 1 })).state).toBe("flaky");
    expect(healthText(healthView(counts({ fired: 4, blocked: 2 })))).toBe("4 fired · 2 blocked");
    expect(healthText(healthView(counts({ fired: 3 })))).toBe("3 fired");
    expect(healthView(undefined)).toEqual({ state: "idle", fired: 0, blocked: 0, failed: 0, windowDays: 7 });
    expect(healthText(healthView(undefined, 30))).toBe("not fired in 30 d");
  });
  it("the window is the last 7 days", () => {
    expect(healthWindowStart(new Date("2026-01-08T00:00:00Z")).toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });
});
