/**
 * Whether a hook can do what it says where it runs: a guard that cannot run here either refuses
 * every call it matches (fails closed) or, letting calls through, decides nothing while it reads
 * "enabled"; both are told apart from hooks that are off on purpose.
 */
import { describe, expect, it } from "vitest";
import { enforcementOf } from "./enforcement";
import { hook } from "./testing/fakes";

const off = { codeExecution: false, secrets: new Set<string>() };
const on = { codeExecution: true, secrets: new Set(["SLACK_BOT_TOKEN"]) };

describe("enforcement", () => {
  it("a command guard with code execution off: fails closed by default, not enforced with onFailure continue", () => {
    const guard = hook({ id: "bash-guard", event: "tool.pre", matcher: "Bash", action: { type: "command", command: "./check.sh" } });
    expect(enforcementOf(guard, off)).toEqual({ state: "fails_closed", why: expect.stringContaining("running code on this server is off") });
    const imported = hook({ id: "bash-guard", event: "tool.pre", matcher: "Bash", onFailure: "continue", dialect: "claude-code", action: { type: "command", command: "./check.sh" } });
    expect(enforcementOf(imported, off)).toEqual({ state: "not_enforced", why: expect.stringContaining("its onFailure lets the call through") });
    expect(enforcementOf(imported, on)).toEqual({ state: "enforced" });
  });

  it("a notice whose secret is not set decides nothing; with it, it is enforced", () => {
    const notice = hook({ id: "tell-ops", event: "session.end", action: { type: "slack", channel: "C1", tokenSecret: "SLACK_BOT_TOKEN" } });
    expect(enforcementOf(notice, off)).toEqual({ state: "not_enforced", why: expect.stringContaining("the secret SLACK_BOT_TOKEN is not set") });
    expect(enforcementOf(notice, on)).toEqual({ state: "enforced" });
  });

  it("in-process guards are enforced; disabled and shadow hooks are off on purpose, not flagged", () => {
    const block = hook({ id: "no-rm", event: "tool.pre", action: { type: "block", denyIf: "rm -rf" } });
    expect(enforcementOf(block, off)).toEqual({ state: "enforced" });
    expect(enforcementOf({ ...block, enabled: false }, off)).toEqual({ state: "off", why: "disabled" });
    expect(enforcementOf({ ...block, mode: "shadow" }, off).state).toBe("off");
    const shadowCommand = hook({ id: "c", event: "tool.pre", mode: "shadow", action: { type: "command", command: "x" } });
    expect(enforcementOf(shadowCommand, off)).toEqual({ state: "off", why: expect.stringContaining("could not run here") });
  });

  it("a stored hook that no longer compiles is flagged with why", () => {
    const broken = { ...hook({ id: "b", event: "tool.pre", action: { type: "block" } }), matcher: "(" };
    expect(enforcementOf(broken, on)).toEqual({ state: "fails_closed", why: expect.stringContaining("invalid matcher") });
  });
});
