/**
 * Re-run with the same input, through the dashboard's action: an operator gets a new run of the
 * same agent with the same prompt, variables and schedule, naming the run it re-ran; a viewer gets
 * nothing; a bridged session is refused with why; another project's run is not found.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Principal } from "@/lib/platform/auth/roles";
import type { TestDatabase } from "@/test/database";
import { runs } from "@/db/schema";

let caller: Principal | undefined;
let testDb: TestDatabase;

vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("next/navigation", () => ({
  redirect: (to: string) => {
    throw Object.assign(new Error(`redirect ${to}`), { digest: `NEXT_REDIRECT;${to}` });
  },
}));
vi.mock("@/db/client", async (importOriginal) => ({ ...(await importOriginal<object>()), getDatabase: async () => testDb }));
vi.mock("@/lib/platform/auth/current-principal", async () => {
  const { AppError } = await import("@/lib/platform/api/app-error");
  const { roleAtLeast } = await import("@/lib/platform/auth/roles");
  return {
    requireActionRole: async (role: Principal["role"]) => {
      if (!caller) throw AppError.unauthorized("Your session has ended; sign in again.");
      if (!roleAtLeast(caller.role, role)) throw AppError.forbidden(`This needs the ${role} role; you are ${caller.role}.`);
      return caller;
    },
  };
});

const { rerunRunAction } = await import("./run-actions");
const { createRun } = await import("@/db/queries/runs");
const { addAgent, createRunHarness, operator, personIn, waitForRun } = await import("@/test/run-harness");
const { addProject } = await import("@/test/people");

let h: Awaited<ReturnType<typeof createRunHarness>>;
let agentId: string;

function form(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

/** The action's redirect target (Next throws a redirect), or the state it answered. */
async function rerun(id: string): Promise<{ redirectTo?: string; state?: unknown }> {
  try {
    return { state: await rerunRunAction({}, form({ id })) };
  } catch (error) {
    const digest = (error as { digest?: string }).digest;
    if (digest?.startsWith("NEXT_REDIRECT;")) return { redirectTo: digest.slice("NEXT_REDIRECT;".length) };
    throw error;
  }
}

const runCount = async () => (await h.t.db.select({ n: count() }).from(runs))[0].n;

beforeAll(async () => {
  h = await createRunHarness();
  testDb = h.t;
  agentId = (await addAgent(h.t, { name: "echo", model: "scripted", script: [{ text: "said: {{prompt}}" }] })).id;
});
afterAll(async () => {
  await h.close();
});

describe("re-run with the same input", () => {
  test("an operator's re-run is a new run of the same agent with the same prompt and variables, naming the one it re-ran", async () => {
    const original = await createRun(h.t.db, { projectId: operator.projectId, agentId, prompt: "hello there", source: "api", vars: { last_run: "yesterday" } });
    caller = operator;
    const { redirectTo } = await rerun(original.id);
    expect(redirectTo).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
    const newId = redirectTo!.split("/").pop()!;
    expect(newId).not.toBe(original.id);
    const done = await waitForRun(h.t, newId, (r) => r.status === "finished");
    expect(done).toMatchObject({ agentId, prompt: "hello there", vars: { last_run: "yesterday" }, source: "rerun", parentRunId: original.id, createdBy: operator.label, outcome: "completed", response: "said: hello there" });
  });

  test("a viewer cannot re-run: nothing is started", async () => {
    const original = await createRun(h.t.db, { projectId: operator.projectId, agentId, prompt: "viewer try", source: "api" });
    const before = await runCount();
    caller = personIn("viewer");
    const { state } = await rerun(original.id);
    expect(state).not.toHaveProperty("ok", true);
    expect(state).toMatchObject({ message: expect.stringContaining("operator") });
    expect(await runCount()).toBe(before);
  });

  test("a bridged session cannot be re-run here, and says why", async () => {
    const bridged = await createRun(h.t.db, { projectId: operator.projectId, agentId, prompt: "Claude Code session abc", source: "claude-code", externalSessionId: "abc" });
    const before = await runCount();
    caller = operator;
    const { state } = await rerun(bridged.id);
    expect(state).not.toHaveProperty("ok", true);
    expect(state).toMatchObject({ message: expect.stringContaining("A bridged claude-code session cannot be re-run from here") });
    expect(await runCount()).toBe(before);
    expect((await h.t.db.select().from(runs).where(eq(runs.parentRunId, bridged.id))).length).toBe(0);
  });

  test("another project's run is not found, and nothing is started", async () => {
    const other = await addProject(h.t.db, { slug: "rerun-other" });
    const theirAgent = await addAgent(h.t, { name: "theirs", model: "scripted", script: [{ text: "x" }] }, [], other.id);
    const theirs = await createRun(h.t.db, { projectId: other.id, agentId: theirAgent.id, prompt: "secret", source: "api" });
    const before = await runCount();
    caller = operator;
    const { state } = await rerun(theirs.id);
    expect(state).not.toHaveProperty("ok", true);
    expect(state).toMatchObject({ message: expect.stringMatching(/not found/i) });
    expect(await runCount()).toBe(before);
  });
});
