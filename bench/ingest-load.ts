/**
 * The load client of npm run bench:ingest (bench/ingest.ts): the sessions' calls posted as Claude
 * Code's `http` hook type posts them, on one kept-alive node:http Agent, all at once or paced, and
 * each answer checked against what its call must get.
 */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { AGENT, GUARD_REASON, INGEST_PATH, LEVELS, PACED_SESSIONS, REQUEST_TIMEOUT_MS, WARMUP_SESSIONS } from "./ingest-config";
import type { PlannedCall, SessionPlan } from "./ingest-sessions";

/** One Agent for the whole run, as one Claude Code keeps its connection; a socket per session at most. */
export const keepAlive = new HttpAgent({ keepAlive: true, maxSockets: Math.max(...LEVELS, PACED_SESSIONS, WARMUP_SESSIONS) + 8 });

interface Answer {
  status: number;
  body: string;
  ms: number;
}

function post(url: URL, body: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: keepAlive,
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }));
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on("error", reject);
    req.end(body);
  });
}

export interface Target {
  /** Session i talks to urls[i % urls.length]. */
  urls: URL[];
  headers: Record<string, string>;
  /** Why an answer is wrong, or undefined. */
  check: (call: PlannedCall, answer: Answer) => string | undefined;
}

export function bareTarget(url: string): Target {
  return {
    urls: [new URL(INGEST_PATH, url)],
    headers: { "content-type": "application/json" },
    check: (_call, answer) => (answer.status === 200 && answer.body === "{}" ? undefined : `HTTP ${answer.status} ${answer.body.slice(0, 200)}`),
  };
}

/** Claude Code's reading of an answer (claudeHookOutput): a deny is hookSpecificOutput.permissionDecision. */
function checkClaudeAnswer(call: PlannedCall, answer: Answer): string | undefined {
  if (answer.status !== 200) return `HTTP ${answer.status} ${answer.body.slice(0, 300)}`;
  let output: { continue?: boolean; decision?: string; hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  try {
    output = JSON.parse(answer.body);
  } catch {
    return `not JSON: ${answer.body.slice(0, 200)}`;
  }
  const specific = output.hookSpecificOutput;
  if (call.denied) {
    if (specific?.permissionDecision !== "deny" || specific.permissionDecisionReason !== GUARD_REASON) return `expected the guard's deny, got ${answer.body}`;
  } else if (specific?.permissionDecision === "deny" || output.continue === false || output.decision === "block") {
    return `expected no objection, got ${answer.body}`;
  }
  return undefined;
}

export function hookplaneTarget(urls: string[], operatorToken: string, agent = AGENT): Target {
  return {
    urls: urls.map((u) => new URL(INGEST_PATH, u)),
    headers: { "content-type": "application/json", authorization: `Bearer ${operatorToken}`, "x-hookplane-agent": agent },
    check: checkClaudeAnswer,
  };
}

export interface Measured {
  calls: number;
  wallMs: number;
  latencies: number[];
  /** Each answer's time by the hook event it answered (SessionStart, PreToolUse, ...): what the tail is made of. */
  byEvent: Map<string, number[]>;
  errors: string[];
}

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));

/**
 * All sessions at once, each awaiting every answer before its next call. Paced: session i starts
 * at i/N of the interval and sends its call k at start + k × interval (at once if the previous
 * answer came later than that).
 */
export async function runSessions(target: Target, plans: SessionPlan[], pacedIntervalMs?: number): Promise<Measured> {
  // New sessions are new Claude Code processes: they open connections of their own rather than
  // take sockets that sat idle through the last read-back, which the server may be closing (its
  // keep-alive timeout) just as a request goes out on them.
  for (const sockets of Object.values(keepAlive.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  const measured: Measured = { calls: 0, wallMs: 0, latencies: [], byEvent: new Map(), errors: [] };
  const began = performance.now();
  await Promise.all(
    plans.map(async (plan) => {
      const url = target.urls[plan.index % target.urls.length];
      const start = began + (pacedIntervalMs ? (plan.index * pacedIntervalMs) / plans.length : 0);
      for (const [k, call] of plan.calls.entries()) {
        if (pacedIntervalMs) await sleepUntil(start + k * pacedIntervalMs);
        measured.calls++;
        try {
          const answer = await post(url, call.body, target.headers);
          measured.latencies.push(answer.ms);
          if (!measured.byEvent.has(call.event)) measured.byEvent.set(call.event, []);
          measured.byEvent.get(call.event)!.push(answer.ms);
          const wrong = target.check(call, answer);
          if (wrong) measured.errors.push(`${plan.id} ${call.event} (call ${k}): ${wrong}`);
        } catch (error) {
          measured.errors.push(`${plan.id} ${call.event} (call ${k}): ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }),
  );
  measured.wallMs = performance.now() - began;
  return measured;
}
