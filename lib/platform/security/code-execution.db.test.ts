/**
 * One trust boundary for running code on the server (issue 17, item 1): every way an operator
 * reached the server's shell, its secret key or its data before, tried as an attacker would
 * through the API, and what an admin's own shell steps can and cannot reach once the switch is on.
 * Each test fails on the code before this boundary existed.
 */
import { createServer, type Server } from "node:net";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import * as agentRoute from "@/app/api/v1/agents/[id]/route";
import * as agentsRoute from "@/app/api/v1/agents/route";
import * as importRoute from "@/app/api/v1/config/import/route";
import * as hookRoute from "@/app/api/v1/hooks/[id]/route";
import * as replayRoute from "@/app/api/v1/hooks/replay/route";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as hookTestRoute from "@/app/api/v1/hooks/test/route";
import * as runsRoute from "@/app/api/v1/runs/route";
import { CodeExecutionStatusList } from "@/lib/features/settings/components/code-execution-status";
import { createAgent, getAgent } from "@/db/queries/agents";
import { listAudit } from "@/db/queries/audit";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { callRoute } from "@/test/api-client";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import { createRunHarness, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { loadSecretKey } from "@/lib/platform/security/secret-box";
import { codeExecutionStatus } from "./code-execution";
import { detectShellSandbox } from "./shell-sandbox";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

const SWITCH = "HOOKPLANE_ALLOW_CODE_EXECUTION";
const OFF = "running code on this server is off (the server's operator turns it on with HOOKPLANE_ALLOW_CODE_EXECUTION=1)";
const INJECTION = "notes.txt; echo INJECTED-$((6*7))";
const TOUCHED = ["HOOKPLANE_DATA_DIR", "HOOKPLANE_WORKSPACES_DIR", SWITCH, "HOOKPLANE_ALLOW_COMMAND_HOOKS", "HOOKPLANE_ALLOW_CODE_HOOKS", "OPENAI_API_KEY", "HOOKPLANE_SECRET_LEAKY", "DATABASE_URL"];
const saved = Object.fromEntries(TOUCHED.map((k) => [k, process.env[k]]));
const root = process.getuid?.() === 0;
const sandbox = detectShellSandbox();

let h: RunHarness;
let admin: string;
let operator: string;
let dataDir: string;
let secretKey: string;

function restore(key: string) {
  setEnv({ [key]: saved[key] });
}

beforeAll(async () => {
  // The server's data directory, as `npm start` makes it: secret.key (0600) beside pgdata.
  dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-sec-data-"));
  setEnv({ HOOKPLANE_DATA_DIR: dataDir });
  secretKey = loadSecretKey({ dataDir }).toString("base64");
  mkdirSync(path.join(dataDir, "pgdata"));
  writeFileSync(path.join(dataDir, "pgdata", "PG_VERSION"), "PGDATA-CANARY\n", { mode: 0o644 });
  h = await createRunHarness();
  setEnv({ HOOKPLANE_WORKSPACES_DIR: h.workspacesDir });
  // Another run's workspace, with something it wrote.
  mkdirSync(path.join(h.workspacesDir, "other-run"));
  writeFileSync(path.join(h.workspacesDir, "other-run", "notes.txt"), "OTHER-RUN-CANARY\n", { mode: 0o644 });
  chmodSync(path.join(h.workspacesDir, "other-run"), 0o755);
  // What the server's environment holds and a step must not see.
  setEnv({ OPENAI_API_KEY: "sk-canary-openai" });
  setEnv({ HOOKPLANE_SECRET_LEAKY: "leaky-canary-value" });
  process.env.DATABASE_URL ??= "postgres://canary:canary-password@127.0.0.1:1/none";
  admin = (await addToken(h.t.db, { role: "admin", name: "setup", userId: (await addPerson(h.t.db, { email: "admin@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") })).id })).token;
  operator = (await addToken(h.t.db, { role: "operator", name: "ops" })).token;
});
afterAll(async () => {
  // The harness's PostgreSQL database was made before DATABASE_URL was touched; put it back first.
  for (const key of TOUCHED) restore(key);
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  setEnv({ [SWITCH]: undefined });
});
afterEach(() => {
  restore(SWITCH);
  restore("HOOKPLANE_ALLOW_COMMAND_HOOKS");
  restore("HOOKPLANE_ALLOW_CODE_HOOKS");
});

const post = (handler: typeof hooksRoute.POST, token: string, body: unknown) => callRoute(handler, { method: "POST", token, body });
const patch = (handler: typeof hookRoute.PATCH, token: string, id: string, body: unknown) => callRoute(handler, { method: "PATCH", token, body, params: { id } });
const shellTurn = (command: string) => ({ toolCalls: [{ name: "shell", input: { command } }] });

async function createAgentAs(token: string, spec: Record<string, unknown>) {
  const res = await post(agentsRoute.POST, token, spec);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string };
}

async function createHookAs(token: string, spec: Record<string, unknown>) {
  const res = await post(hooksRoute.POST, token, spec);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

/** Starts a run as the admin through the API and waits for it: its events, ledger and workspace. */
async function runToEnd(agent: string) {
  const started = await post(runsRoute.POST, admin, { agent, prompt: "go" });
  expect(started.status).toBe(202);
  const run = await waitForRun(h.t, started.body.id, (r) => r.status === "finished", 30_000);
  const events = await runEvents(h.t, run.id);
  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  return { run, events, ledger, workspace: path.join(h.workspacesDir, run.id) };
}

const toolOutputs = (events: { type: string; data: Record<string, unknown> }[]) =>
  events.filter((e) => e.type === "tool.post").map((e) => ({ output: String(e.data.output), isError: e.data.isError }));

describe("an operator cannot reach the server's shell", () => {
  // Hooks made here are scoped to this agent, so they stay out of the other tests' runs.
  const scope = "agent:sandbox-target";
  beforeAll(async () => {
    await createAgentAs(admin, { name: "sandbox-target", script: [{ text: "hi" }] });
  });

  test("through a tool hook naming the shell: not by saving one, changing one into one, trying or replaying one", async () => {
    setEnv({ [SWITCH]: "1" }); // the role is the barrier, whatever the switch says
    const marker = path.join(h.workspacesDir, "operator-was-here");
    const shellHook = { id: "op-shell", scope, event: "tool.pre", action: { type: "tool", tool: "shell", args: { command: `id -un > ${marker}` } } };

    const created = await post(hooksRoute.POST, operator, shellHook);
    expect(created.status).toBe(403);
    expect(created.body.error.message).toBe(
      "Only admins may create or change tool hooks that call the shell tool: they run shell commands on the server. You are operator.",
    );

    const innocent = await createHookAs(operator, { id: "op-memory", scope, event: "tool.pre", action: { type: "tool", tool: "memory", args: { action: "read", file: "a.md" } } });
    const changed = await patch(hookRoute.PATCH, operator, innocent.id, { action: shellHook.action });
    expect(changed.status).toBe(403);
    const stored = await callRoute(hookRoute.GET, { token: operator, params: { id: innocent.id } });
    expect(stored.body).toMatchObject({ version: 1, spec: { action: { type: "tool", tool: "memory" } } });

    const tried = await post(hookTestRoute.POST, operator, { hook: shellHook, event: { type: "tool.pre", toolName: "list_files", toolInput: {} } });
    expect(tried.status).toBe(403);
    expect(tried.body.error.message).toContain("Only admins may run tool hooks that call the shell tool");
    const replayed = await post(replayRoute.POST, operator, { hook: shellHook, agent: "sandbox-target", runs: 1 });
    expect(replayed.status).toBe(403);

    expect(existsSync(marker)).toBe(false);
    const audit = await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 });
    expect(audit.filter((a) => a.action.startsWith("hook.")).map((a) => [a.action, (a.after as { key?: string } | null)?.key])).toEqual([["hook.create", "op-memory"]]);
  });

  test("through command and code hooks: an operator can neither save nor try one", async () => {
    setEnv({ [SWITCH]: "1" });
    const command = { id: "op-command", scope, event: "session.start", action: { type: "command", command: "id -un" } };
    const code = { id: "op-code", scope, event: "session.start", action: { type: "code", module: "anything" } };
    expect((await post(hooksRoute.POST, operator, command)).body.error.message).toBe(
      "Only admins may create or change command hooks: they run shell commands on the server. You are operator.",
    );
    expect((await post(hooksRoute.POST, operator, code)).status).toBe(403);
    const tried = await post(hookTestRoute.POST, operator, { hook: command, event: { type: "session.start", prompt: "x" } });
    expect(tried.status).toBe(403);
    expect((await post(hookTestRoute.POST, operator, { hooks: [{ id: "ok", event: "session.start", action: { type: "log" } }, code], event: { type: "session.start" } })).status).toBe(403);
    // An admin may store one even while the switch is off (it will not run until it is on).
    setEnv({ [SWITCH]: undefined });
    expect((await post(hooksRoute.POST, admin, { ...command, id: "admin-command" })).status).toBe(201);
  });

  test("through an agent's shell tool: not by name, not by *, not by changing an agent that has it, not by import", async () => {
    const refused = await post(agentsRoute.POST, operator, { name: "op-shell", tools: ["shell"], script: [shellTurn("id -un")] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe("Only admins may create or change an agent with the shell tool (op-shell): it runs shell commands on the server. You are operator.");
    expect((await post(agentsRoute.POST, operator, { name: "op-star", tools: ["*"] })).status).toBe(403);

    const own = await createAgentAs(operator, { name: "op-reader", tools: ["read_file"] });
    expect((await patch(agentRoute.PATCH, operator, own.id, { tools: ["read_file", "shell"] })).status).toBe(403);
    expect((await getAgent(h.t.db, { projectId: DEFAULT_PROJECT_ID, ref: own.id }))?.tools).toEqual(["read_file"]);

    // An admin's shell agent: its script and instructions steer the shell, so they are the admin's too.
    const adminShell = await createAgentAs(admin, { name: "admin-shell", tools: ["shell"], script: [shellTurn("echo hi")] });
    expect((await patch(agentRoute.PATCH, operator, adminShell.id, { script: [shellTurn("cat /etc/shadow")] })).status).toBe(403);
    expect((await patch(agentRoute.PATCH, operator, adminShell.id, { instructions: "run whatever the user says" })).status).toBe(403);
    expect((await getAgent(h.t.db, { projectId: DEFAULT_PROJECT_ID, ref: adminShell.id }))?.script).toEqual([shellTurn("echo hi")]);

    const content = "agents:\n  - name: imported-shell\n    tools: [shell]\n";
    const preview = await post(importRoute.POST, operator, { dialect: "hookplane", content, dry: true });
    expect(preview.status).toBe(200);
    expect(preview.body.requiresAdmin).toEqual([preview.body.agents[0].path]);
    const imported = await post(importRoute.POST, operator, { dialect: "hookplane", content });
    expect(imported.status).toBe(403);
    expect(imported.body.error.message).toContain("(agent imported-shell, shell tool)");
    expect(await getAgent(h.t.db, { projectId: DEFAULT_PROJECT_ID, ref: "imported-shell" })).toBeUndefined();
  });
});

test("with the switch off nothing runs a process, even what an admin stored: the ledger and the tool result say why", async () => {
  const agent = await createAgentAs(admin, { name: "stored-shell", tools: ["shell"], script: [shellTurn("touch agent-ran"), { text: "done" }] });
  const scope = `agent:${agent.name}`;
  await createHookAs(admin, { id: "start-command", scope, event: "session.start", onFailure: "continue", action: { type: "command", command: "touch command-ran" } });
  await createHookAs(admin, { id: "pre-shell", scope, event: "tool.pre", onFailure: "continue", action: { type: "tool", tool: "shell", args: { command: "touch tool-hook-ran" } } });
  await createHookAs(admin, { id: "pre-code", scope, event: "tool.pre", onFailure: "continue", action: { type: "code", module: "anything" } });

  const { run, events, ledger, workspace } = await runToEnd(agent.name);
  expect(run.outcome).toBe("completed");
  for (const file of ["agent-ran", "command-ran", "tool-hook-ran"]) expect(existsSync(path.join(workspace, file))).toBe(false);
  expect(toolOutputs(events)).toEqual([{ output: `refused: ${OFF}`, isError: true }]);
  const refusals = ledger.filter((l) => l.matched).map((l) => ({ hook: l.hookKey, failed: l.failed, reason: l.reason, exitCode: l.exitCode, stdout: l.stdout }));
  expect(refusals).toEqual([
    { hook: "start-command", failed: true, reason: `command hook start-command not run: ${OFF} (onFailure: continue)`, exitCode: null, stdout: null },
    { hook: "pre-shell", failed: true, reason: `tool hook pre-shell not run: ${OFF} (onFailure: continue)`, exitCode: null, stdout: null },
    { hook: "pre-code", failed: true, reason: `code hook pre-code not run: ${OFF} (onFailure: continue)`, exitCode: null, stdout: null },
  ]);

  // The hook test is the same runtime: an admin trying a shell hook gets the reason, and nothing runs.
  const marker = path.join(h.workspacesDir, "trial-ran");
  const tried = await post(hookTestRoute.POST, admin, {
    hook: { id: "try-shell", event: "tool.pre", action: { type: "tool", tool: "shell", args: { command: `touch ${marker}` } } },
    event: { type: "tool.pre", toolName: "list_files", toolInput: {} },
  });
  expect(tried.status).toBe(200);
  expect(tried.body).toMatchObject({ verdict: "block", reason: `tool hook try-shell not run: ${OFF}` });
  expect(existsSync(marker)).toBe(false);
});

describe("an admin's shell steps (switch on)", () => {
  /** Everything a step might try to read on its way out of its workspace, one finding per line. */
  const probe = (port: number) =>
    [
      "echo cwd=$(pwd)",
      "echo uid=$(id -u)",
      "cat ../../secret.key ../secret.key",
      `cat ${dataDir}/secret.key`,
      `echo "data=$(ls -A ${dataDir} 2>&1 | tr "\\n" " ")"`,
      `cat ${dataDir}/pgdata/PG_VERSION`,
      'echo "parent=$(ls -A .. | tr "\\n" " ")"',
      "cat ../other-run/notes.txt",
      "ls -A /run/postgresql",
      `bash -c 'echo x > /dev/tcp/127.0.0.1/${port}' 2>/dev/null && echo tcp=connected || echo tcp=refused`,
      "env",
      "echo probe-done",
    ].join("; ");

  let listener: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => listener.close(() => r())));

  /** What no step may show: the key, the database files, another run's files, the socket, the environment. */
  function expectContained(output: string, workspace: string) {
    expect(output).toContain("probe-done");
    expect(output).not.toContain(secretKey);
    expect(output).not.toContain("PGDATA-CANARY");
    expect(output).not.toContain("OTHER-RUN-CANARY");
    // Its own folder at most: no other run's, no data directory listing.
    expect(/^parent=(.*)$/m.exec(output)?.[1]?.trim()).toMatch(sandbox.kind === "none" ? /^$/ : new RegExp(`^${path.basename(workspace)}$`));
    expect(/^data=(.*)$/m.exec(output)?.[1]).not.toMatch(/secret\.key|pgdata/);
    expect(output).not.toContain(".s.PGSQL");
    expect(output).not.toMatch(/^(HOOKPLANE_|DATABASE_URL=|OPENAI_API_KEY=)/m);
    for (const canary of ["sk-canary-openai", "leaky-canary-value", "canary-password"]) expect(output).not.toContain(canary);
    const cwd = /^cwd=(.*)$/m.exec(output)?.[1];
    expect(cwd).toBe(workspace);
    expect(path.relative(dataDir, cwd!).startsWith("..")).toBe(true);
    // The server is root here: the step is not.
    if (root) expect(/^uid=(\d+)$/m.exec(output)?.[1]).not.toBe("0");
    if (sandbox.kind !== "none") expect(output).toContain("tcp=refused");
  }

  test("the shell tool cannot read the secret key, the data directory, another run's workspace or the database socket, nor see the server's environment", async () => {
    setEnv({ [SWITCH]: "1" });
    const before = connections;
    const agent = await createAgentAs(admin, { name: "prober", tools: ["shell"], script: [shellTurn(probe(port)), { text: "done" }] });
    const { events, workspace } = await runToEnd(agent.name);
    const [result] = toolOutputs(events);
    expectContained(result.output, workspace);
    expect(connections).toBe(before + (sandbox.kind === "none" ? 1 : 0));
    // The canaries are real: the server itself reads them.
    expect(readFileSync(path.join(dataDir, "secret.key"), "utf8")).toContain(secretKey);
    expect(readFileSync(path.join(h.workspacesDir, "other-run", "notes.txt"), "utf8")).toBe("OTHER-RUN-CANARY\n");
  });

  test("a command hook is held the same way, and sees a secret only when it names it", async () => {
    setEnv({ [SWITCH]: "1" });
    const agent = await createAgentAs(admin, { name: "hooked", script: [{ text: "done" }] });
    await createHookAs(admin, { id: "probe", scope: `agent:${agent.name}`, event: "session.start", onFailure: "continue", action: { type: "command", command: probe(port) } });
    await createHookAs(admin, {
      id: "named-secret",
      scope: `agent:${agent.name}`,
      event: "session.start",
      onFailure: "continue",
      action: { type: "command", command: '[ "$LEAKY" = leaky-canary-value ] && echo named-secret-present', secrets: ["LEAKY"] },
    });
    const { ledger, workspace } = await runToEnd(agent.name);
    const probeRow = ledger.find((l) => l.hookKey === "probe")!;
    expectContained(probeRow.stdout ?? "", workspace);
    expect(ledger.find((l) => l.hookKey === "named-secret")).toMatchObject({ exitCode: 0, stdout: "named-secret-present\n" });
  });

  test("a template value reaches a shell command as data, never as shell text (hook test and a stored hook)", async () => {
    setEnv({ [SWITCH]: "1" });
    const tried = await post(hookTestRoute.POST, admin, {
      hook: { id: "checker", event: "tool.pre", action: { type: "tool", tool: "shell", args: { command: "echo checking {{toolInput.path}}" } } },
      event: { type: "tool.pre", toolName: "write_file", toolInput: { path: INJECTION } },
    });
    expect(tried.status).toBe(200);
    expect(tried.body.ledger[0]).toMatchObject({ failed: false, stdout: `checking ${INJECTION}\n` });
    expect(JSON.stringify(tried.body)).not.toContain("INJECTED-42");

    // The model chooses the path; the admin's hook echoes it into a file.
    const agent = await createAgentAs(admin, { name: "writer", tools: ["write_file"], script: [{ toolCalls: [{ name: "write_file", input: { path: INJECTION, content: "x" } }] }, { text: "done" }] });
    await createHookAs(admin, {
      id: "record-path",
      scope: `agent:${agent.name}`,
      event: "tool.pre",
      matcher: "write_file",
      action: { type: "tool", tool: "shell", args: { command: "echo \"checking {{toolInput.path}}\" >> checked.txt; echo 'in single quotes: {{toolInput.path}}' >> checked.txt" } },
    });
    const { workspace } = await runToEnd(agent.name);
    expect(readFileSync(path.join(workspace, "checked.txt"), "utf8")).toBe(`checking ${INJECTION}\nin single quotes: ${INJECTION}\n`);
  });

  test("the file tools and the shell share the workspace: the step (not root) can change what write_file wrote", async () => {
    setEnv({ [SWITCH]: "1" });
    const agent = await createAgentAs(admin, {
      name: "editor",
      tools: ["write_file", "shell"],
      script: [{ toolCalls: [{ name: "write_file", input: { path: "notes/a.txt", content: "one\n" } }] }, shellTurn("echo two >> notes/a.txt && cat notes/a.txt"), { text: "done" }],
    });
    const { events } = await runToEnd(agent.name);
    expect(toolOutputs(events)).toEqual([
      { output: "wrote 4 bytes to notes/a.txt", isError: false },
      { output: "one\ntwo\n", isError: false },
    ]);
  });

  test("with HOOKPLANE_SHELL_NETWORK=host a sandboxed step reaches the network (the setting is the one in force)", async () => {
    if (sandbox.kind === "none") return; // no network namespace to leave out
    setEnv({ [SWITCH]: "1" });
    setEnv({ HOOKPLANE_SHELL_NETWORK: "host" });
    try {
      const before = connections;
      const tried = await post(hookTestRoute.POST, admin, {
        hook: { id: "net", event: "session.start", action: { type: "command", command: `bash -c 'echo x > /dev/tcp/127.0.0.1/${port}' && echo tcp=connected` } },
        event: { type: "session.start" },
      });
      expect(tried.body.ledger[0].stdout).toBe("tcp=connected\n");
      expect(connections).toBe(before + 1);
    } finally {
      setEnv({ HOOKPLANE_SHELL_NETWORK: undefined });
    }
  });
});

describe("an agent's metadataFile stays in its workspace", () => {
  test("refused at save with the path: relative, and not climbing out", async () => {
    const climbing = await post(agentsRoute.POST, admin, { name: "meta-climb", metadataFile: "../../../../etc/passwd" });
    expect(climbing.status).toBe(422);
    expect(climbing.body.error.issues).toEqual([{ path: "metadataFile", message: "\"../../../../etc/passwd\" leads outside the agent's workspace" }]);
    const absolute = await post(agentsRoute.POST, admin, { name: "meta-abs", metadataFile: "/etc/passwd" });
    expect(absolute.body.error.issues).toEqual([{ path: "metadataFile", message: "\"/etc/passwd\" is an absolute path: give a path inside the agent's workspace" }]);
    const ok = await createAgentAs(admin, { name: "meta-ok", metadataFile: "out/meta.json" });
    const patched = await patch(agentRoute.PATCH, admin, ok.id, { metadataFile: "out/../../x.json" });
    expect(patched.status).toBe(422);
    expect(patched.body.error.issues[0].path).toBe("metadataFile");
    expect((await getAgent(h.t.db, { projectId: DEFAULT_PROJECT_ID, ref: ok.id }))?.metadataFile).toBe("out/meta.json");
  });

  test("refused at run time for a stored path that leads out; read when it stays in", async () => {
    writeFileSync(path.join(h.workspacesDir, "leak.json"), JSON.stringify({ stolen: "META-CANARY" }));
    // Stored before paths were checked: straight into the database, past the schema.
    const legacy = agentSpecSchema.parse({ name: "legacy-meta", script: [{ text: "done" }] });
    await createAgent(h.t.db, { projectId: DEFAULT_PROJECT_ID, spec: { ...legacy, metadataFile: "../leak.json" } });
    const leaked = await runToEnd("legacy-meta");
    expect(leaked.run.outcome).toBe("completed");
    expect(JSON.stringify(leaked.events)).not.toContain("META-CANARY");
    expect(leaked.events.filter((e) => e.type === "loop.metadata")).toEqual([]);

    // The control: the same reader finds a file inside the workspace.
    const good = await createAgentAs(admin, {
      name: "good-meta",
      tools: ["write_file"],
      metadataFile: "meta.json",
      script: [{ toolCalls: [{ name: "write_file", input: { path: "meta.json", content: JSON.stringify({ found: "META-OK" }) } }] }, { text: "done" }],
    });
    const read = await runToEnd(good.name);
    expect(read.events.find((e) => e.type === "loop.metadata")?.data).toMatchObject({ metadata: { found: "META-OK" } });
  });
});

test("Settings shows the switch the runtime obeys: the retired switches enable nothing", async () => {
  // What enabled command hooks before, while Settings said they were off.
  setEnv({ HOOKPLANE_ALLOW_COMMAND_HOOKS: "true" });
  setEnv({ HOOKPLANE_ALLOW_CODE_HOOKS: "1" });
  const render = () => renderToStaticMarkup(createElement(CodeExecutionStatusList, { status: codeExecutionStatus() }));
  const tryCommand = () =>
    post(hookTestRoute.POST, admin, { hook: { id: "echo", event: "session.start", action: { type: "command", command: "echo ran" } }, event: { type: "session.start" } });

  expect(codeExecutionStatus()).toMatchObject({ switchName: SWITCH, enabled: false, retiredSwitchesSet: ["HOOKPLANE_ALLOW_COMMAND_HOOKS", "HOOKPLANE_ALLOW_CODE_HOOKS"] });
  const off = render();
  expect(off).toContain("off: nothing runs a process or loads code");
  expect(off).toContain("HOOKPLANE_ALLOW_COMMAND_HOOKS, HOOKPLANE_ALLOW_CODE_HOOKS are set but no longer read");
  expect(off).toContain("(the default: the variable is not set)");
  const refused = await tryCommand();
  expect(refused.body.ledger[0]).toMatchObject({ failed: true, reason: `command hook echo not run: ${OFF}` });
  expect(refused.body.ledger[0].stdout).toBeUndefined();

  setEnv({ [SWITCH]: "true" });
  expect(codeExecutionStatus().enabled).toBe(true);
  const on = render();
  expect(on).toContain("on: an admin&#x27;s shell tool");
  expect(on).toContain("(set by HOOKPLANE_ALLOW_CODE_EXECUTION)");
  expect(on).toContain(sandbox.kind === "none" ? "none: this machine allows no namespaces" : "namespaces (util-linux unshare");
  const ran = await tryCommand();
  expect(ran.body.ledger[0]).toMatchObject({ failed: false, exitCode: 0, stdout: "ran\n" });
});
