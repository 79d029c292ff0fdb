/**
 * Three people in two projects, each with their own bridge credential, through the real `hookplane
 * hook claude-code` CLI over HTTP (issue 27): every call is recorded as its person's (the run, each
 * ledger row, with the machine as the CLI reported it), a shared session id stays one run per person,
 * another project's person reaches only their own project's agent, and a rule for one person holds
 * for them alone from their next call.
 */
import { hostname, userInfo } from "node:os";
import { expect, test } from "vitest";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { addPerson, addProject, addToken, DEFAULT_PROJECT_ID } from "@/test/people";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";

const h = useBridgeHarness({ ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST }, agents: { dev: [] } });

async function setUpPeople() {
  const people: Record<string, { id: string; token: string; projectId: string }> = {};
  for (const [name, role] of [["alice", "operator"], ["bob", "viewer"]] as const) {
    const person = await addPerson(h.t.db, { email: `${name}@example.com`, role });
    people[name] = { id: person.id, projectId: DEFAULT_PROJECT_ID, token: (await addToken(h.t.db, { role: "viewer", kind: "bridge", userId: person.id, name: `${name}-laptop` })).token };
  }
  const other = await addProject(h.t.db, { slug: "other" });
  await createAgent(h.t.db, { projectId: other.id, spec: agentSpecSchema.parse({ name: "dev" }) });
  const dave = await addPerson(h.t.db, { email: "dave@example.com", role: "operator", projectId: other.id });
  people.dave = { id: dave.id, projectId: other.id, token: (await addToken(h.t.db, { role: "viewer", kind: "bridge", userId: dave.id, projectId: other.id, name: "dave-laptop" })).token };
  return people;
}

test("through the real CLI: each call its person's, on the run and every ledger row, with the machine it reported; one run per person per session; a person's rule from their next call", async () => {
  const people = await setUpPeople();
  await createHook(h.t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "no-force-push", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "No force pushes", denyIf: "push --force" } }),
    actor: "test",
  });
  let n = 0;
  const call = (who: string, command: string, session = "shared-session") =>
    runHookplaneCli(
      ["hook", "claude-code", "--agent", "dev"],
      { session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: `toolu_${who}_${++n}`, cwd: "/repo" },
      { HOOKPLANE_URL: h.server.url, HOOKPLANE_TOKEN: people[who].token },
    );
  const decision = (r: Awaited<ReturnType<typeof call>>) => {
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim() ? ((r.json().hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision ?? "allow") : "allow";
  };

  expect(await Promise.all([call("alice", "git status"), call("bob", "git status"), call("dave", "git status")]).then((all) => all.map(decision))).toEqual(["allow", "allow", "allow"]);
  expect(decision(await call("bob", "git push --force"))).toBe("deny");

  // One run per person for the same session id, each in its person's project, with the machine the CLI reported (unverified).
  const runs = (await h.t.execute("select project_id, actor_key, actor_label, actor_host, actor_os_user, last_seq from runs where external_session_id = 'shared-session' order by actor_label")).rows;
  expect(runs).toEqual([
    { project_id: DEFAULT_PROJECT_ID, actor_key: `user:${people.alice.id}`, actor_label: "alice@example.com", actor_host: hostname(), actor_os_user: userInfo().username, last_seq: 1 },
    { project_id: DEFAULT_PROJECT_ID, actor_key: `user:${people.bob.id}`, actor_label: "bob@example.com", actor_host: hostname(), actor_os_user: userInfo().username, last_seq: 3 },
    { project_id: people.dave.projectId, actor_key: `user:${people.dave.id}`, actor_label: "dave@example.com", actor_host: hostname(), actor_os_user: userInfo().username, last_seq: 1 },
  ]);
  // Every ledger row names the person and their role then; Bob's refusal is his.
  const ledger = (await h.t.execute("select l.hook_key, l.verdict, l.actor_key, l.actor->>'role' as role from hook_invocations l order by l.id")).rows;
  expect(ledger.filter((r) => r.verdict === "block")).toEqual([{ hook_key: "no-force-push", verdict: "block", actor_key: `user:${people.bob.id}`, role: "viewer" }]);
  expect(new Set(ledger.map((r) => r.actor_key))).toEqual(new Set([`user:${people.alice.id}`, `user:${people.bob.id}`]));

  // A rule for Alice alone, from her next call: Bob's same command still passes.
  await createHook(h.t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "alice-no-rebase", scope: `person:${people.alice.id}`, event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "Alice's rebases go through review", denyIf: "rebase" } }),
    actor: "test",
  });
  const alices = await call("alice", "git rebase main");
  expect(decision(alices)).toBe("deny");
  expect(alices.stdout).toContain("Alice's rebases go through review");
  expect(decision(await call("bob", "git rebase main"))).toBe("allow");
  expect(decision(await call("dave", "git rebase main"))).toBe("allow");
});
