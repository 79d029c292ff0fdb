import { afterEach, describe, expect, it } from "vitest";
import type { OutboundTransport } from "@/lib/core/outbound/outbound-request";
import { createHookRuntime } from "./runtime";
import type { HookRuntimeOptions } from "./runtime-types";
import { closedPort, event, hook, json, startServer, toolPre, type LocalServer } from "./testing/fakes";

const servers: LocalServer[] = [];
async function server(handle: Parameters<typeof startServer>[0]) {
  const s = await startServer(handle);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const secrets = {
  get: (name: string) =>
    ({
      CI_TOKEN: { value: "ci-token-9876", hosts: ["127.0.0.1"] },
      SLACK_BOT_TOKEN: { value: "xoxb-slack-123", hosts: ["slack.com", "127.0.0.1"] },
      DISCORD_BOT_TOKEN: { value: "discord-bot-456", hosts: ["discord.com", "127.0.0.1"] },
    })[name],
};
// The local servers listen on loopback, which the guard refuses unless the allow-list names it.
const loopbackAllowed = { allowPrivateHosts: ["127.0.0.1", "localhost"] };
const runtime = (extra: HookRuntimeOptions = {}) => createHookRuntime({ secrets, outbound: loopbackAllowed, ...extra });
const ended = (outcome: string, extra: Record<string, unknown> = {}) =>
  event("session.end", { outcome, response: "Price check complete: Staples Hyken at $159.99", durationMs: 330_000, ...extra }, { metadata: { shouldNotify: true, lowestPrice: 159.99 } });

describe("webhook", () => {
  it("POSTs the context JSON with secret headers, secrets scrubbed from the body", async () => {
    const s = await server((_req, res) => json(res, 200, { ok: true }));
    const h = hook({ id: "ci", event: "session.end", action: { type: "webhook", url: `${s.url}/trigger`, headers: { Authorization: "Bearer ${secret:CI_TOKEN}" } } });
    const result = await runtime().dispatch([h], ended("completed", { note: "leaked ci-token-9876" }));
    expect(result.ledger[0]).toMatchObject({ verdict: "allow", exitCode: 200, failed: false });
    const [req] = s.requests;
    expect(req).toMatchObject({ method: "POST", url: "/trigger" });
    expect(req.headers.authorization).toBe("Bearer ci-token-9876");
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({ event: "session.end", result: { success: true, output: expect.stringContaining("Staples") }, metadata: { shouldNotify: true } });
    expect(req.body).not.toContain("ci-token-9876");
  });

  it("PUT works too", async () => {
    const s = await server((_req, res) => json(res, 204, {}));
    const h = hook({ id: "put", event: "session.end", action: { type: "webhook", url: s.url, method: "PUT" } });
    await runtime().dispatch([h], ended("completed"));
    expect(s.requests[0].method).toBe("PUT");
  });

  it("a JSON response may carry a decision, like a command", async () => {
    const s = await server((_req, res) => json(res, 200, { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "policy says no" } }));
    const h = hook({ id: "policy", event: "tool.pre", action: { type: "webhook", url: s.url } });
    const result = await runtime().dispatch([h], toolPre("Bash", { command: "rm -rf /" }));
    expect(result).toMatchObject({ verdict: "block", reason: "policy says no", blockedBy: "policy" });
  });

  it("a non-2xx answer is a failure under onFailure", async () => {
    const s = await server((_req, res) => json(res, 500, { error: "down" }));
    const gate = hook({ id: "policy", event: "tool.pre", action: { type: "webhook", url: s.url } });
    expect(await runtime().dispatch([gate], toolPre("x"))).toMatchObject({ verdict: "block", reason: "HTTP 500 from the webhook" });
    const notify = hook({ id: "n", event: "session.end", action: { type: "webhook", url: s.url } });
    expect((await runtime().dispatch([notify], ended("completed"))).ledger[0]).toMatchObject({ failed: true, verdict: "allow" });
  });

  it("a slow webhook times out at its timeout", async () => {
    const s = await server(() => {});
    const h = hook({ id: "slow", event: "tool.pre", action: { type: "webhook", url: s.url, timeoutMs: 100 } });
    const start = Date.now();
    const result = await runtime().dispatch([h], toolPre("x"));
    expect(Date.now() - start).toBeLessThan(2000);
    expect(result).toMatchObject({ verdict: "block", reason: "no response within 100 ms" });
    expect(result.ledger[0].timedOut).toBe(true);
  });

  it("an unreachable host is a failure with a readable reason", async () => {
    const port = await closedPort();
    const h = hook({ id: "gone", event: "session.end", action: { type: "webhook", url: `http://127.0.0.1:${port}/x` } });
    const result = await runtime().dispatch([h], ended("failed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, verdict: "allow", timedOut: false });
    // One message whatever went wrong: the answer must not tell open ports from closed ones.
    expect(result.ledger[0].reason).toBe(`could not connect to 127.0.0.1 (onFailure: continue)`);
  });

  it("plain http goes only to hosts on the allow-list", async () => {
    const h = hook({ id: "h", event: "session.end", action: { type: "webhook", url: "http://{{vars.host}}/x" } });
    const result = await runtime().dispatch([h], event("session.end", { outcome: "completed" }, { vars: { host: "example.com" } }));
    expect(result.ledger[0].reason).toContain("plain http is allowed only to hosts on the admin's allow-list");
    const stored = hook({ id: "h2", event: "tool.pre", action: { type: "webhook", url: "http://example.com/x" } });
    expect((await runtime().dispatch([stored], toolPre("x"))).reason).toContain("plain http is allowed only to hosts on the admin's allow-list");
  });

  it("enforces the host allowlist", async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const h = hook({ id: "h", event: "session.end", action: { type: "webhook", url: s.url } });
    const result = await runtime({ allowHosts: ["hooks.example.com"] }).dispatch([h], ended("completed"));
    expect(result.ledger[0].reason).toContain("not in the webhook allowlist");
    expect(s.requests).toHaveLength(0);
  });

  it("follows redirects on the same host only", async () => {
    const target = await server((_req, res) => json(res, 200, {}));
    const s = await server((req, res) => {
      if (req.url === "/same") res.writeHead(307, { location: "/final" }).end();
      else if (req.url === "/other") res.writeHead(302, { location: `http://localhost:${target.port}/steal` }).end();
      else json(res, 200, { output: "reached" });
    });
    const same = hook({ id: "same", event: "tool.pre", action: { type: "webhook", url: `${s.url}/same` } });
    expect(await runtime().dispatch([same], toolPre("x"))).toMatchObject({ verdict: "allow", output: "reached" });
    expect(s.requests.map((r) => r.url)).toEqual(["/same", "/final"]);
    const other = hook({ id: "other", event: "tool.pre", action: { type: "webhook", url: `${s.url}/other` } });
    const refused = await runtime().dispatch([other], toolPre("x"));
    expect(refused.reason).toBe(`redirect to another host refused: http://localhost:${target.port}`);
    expect(target.requests).toHaveLength(0);
  });
});

describe("slack and discord notifications (herdctl)", () => {
  it("posts chat.postMessage with title, colour by outcome, fields, metadata and output", async () => {
    const s = await server((_req, res) => json(res, 200, { ok: true }));
    const rt = runtime({ slackBaseUrl: s.url });
    const h = hook({ id: "slack", event: "session.end", when: "metadata.shouldNotify", action: { type: "slack", channel: "C0123456789", tokenSecret: "SLACK_BOT_TOKEN" } });
    const colours: string[] = [];
    for (const outcome of ["completed", "failed", "timeout", "cancelled"]) {
      const result = await rt.dispatch([h], ended(outcome));
      expect(result.ledger[0]).toMatchObject({ matched: true, verdict: "allow", failed: false });
      const req = s.requests.at(-1)!;
      expect(req.url).toBe("/chat.postMessage");
      expect(req.headers.authorization).toBe("Bearer xoxb-slack-123");
      const body = JSON.parse(req.body);
      expect(body.channel).toBe("C0123456789");
      const [attachment] = body.attachments;
      expect(attachment.title).toBe("price-checker · run run-1");
      expect(attachment.text).toContain("Staples Hyken");
      expect(attachment.fields).toEqual(
        expect.arrayContaining([
          { title: "Duration", value: "5m 30s", short: true },
          { title: "Event", value: `session.end (${outcome})`, short: true },
          { title: "lowestPrice", value: "159.99", short: true },
        ]),
      );
      colours.push(attachment.color);
    }
    expect(colours).toEqual(["#2eb67d", "#e01e5a", "#ecb22e", "#ecb22e"]);
  });

  it("Slack's {ok:false} is a failure", async () => {
    const s = await server((_req, res) => json(res, 200, { ok: false, error: "channel_not_found" }));
    const h = hook({ id: "slack", event: "session.end", action: { type: "slack", channel: "C1", tokenSecret: "SLACK_BOT_TOKEN" } });
    const result = await runtime({ slackBaseUrl: s.url }).dispatch([h], ended("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, reason: "Slack refused the message: channel_not_found (onFailure: continue)" });
  });

  it("posts a Discord embed to channels/{id}/messages, output truncated", async () => {
    const s = await server((_req, res) => json(res, 200, { id: "1" }));
    const h = hook({ id: "discord", event: "session.end", action: { type: "discord", channel: "123456789012345678", tokenSecret: "DISCORD_BOT_TOKEN" } });
    const result = await runtime({ discordBaseUrl: s.url }).dispatch([h], ended("failed", { response: "x".repeat(5000) }));
    expect(result.ledger[0].failed).toBe(false);
    const req = s.requests[0];
    expect(req.url).toBe("/channels/123456789012345678/messages");
    expect(req.headers.authorization).toBe("Bot discord-bot-456");
    const [embed] = JSON.parse(req.body).embeds;
    expect(embed).toMatchObject({ title: "price-checker · run run-1", color: 0xe74c3c });
    expect(embed.description.length).toBe(1000);
    expect(embed.fields).toEqual(expect.arrayContaining([{ name: "Duration", value: "5m 30s", inline: true }]));
    expect(result.ledger[0].stdout).not.toContain("discord-bot-456");
  });

  it("a missing token secret is a clear failure", async () => {
    const h = hook({ id: "discord", event: "session.end", action: { type: "discord", channel: "1", tokenSecret: "NOPE" } });
    const result = await runtime({ discordBaseUrl: "http://127.0.0.1:9" }).dispatch([h], ended("completed"));
    expect(result.ledger[0].reason).toBe("secret NOPE is not set (onFailure: continue)");
  });

  it("defaults to the real Slack and Discord APIs (never called here: the transport is injected)", async () => {
    const urls: string[] = [];
    const transport: OutboundTransport = async (_policy, req) => {
      urls.push(req.url.href);
      return { status: 200, statusMessage: "OK", headers: {}, body: Buffer.from(JSON.stringify({ ok: true })), totalBytes: 11 };
    };
    const rt = createHookRuntime({ secrets, transport });
    await rt.dispatch(
      [
        hook({ id: "s", event: "session.end", action: { type: "slack", channel: "C1", tokenSecret: "SLACK_BOT_TOKEN" } }),
        hook({ id: "d", event: "session.end", action: { type: "discord", channel: "42", tokenSecret: "DISCORD_BOT_TOKEN" } }),
      ],
      ended("completed"),
    );
    expect(urls).toEqual(["https://slack.com/api/chat.postMessage", "https://discord.com/api/v10/channels/42/messages"]);
  });
});
