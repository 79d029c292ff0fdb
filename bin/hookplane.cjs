#!/usr/bin/env node
/**
 * The `hookplane` command. CommonJS with only node: built-ins, because a coding agent starts
 * `hookplane hook <agent>` before EVERY tool call: its start-up is on the agent's critical path
 * (npm run bench:bridge measures it against a bare `node -e ""`). So the hook path loads nothing
 * it does not use: CommonJS skips the ESM loader (~4 ms), the request goes over node:net
 * (lib/http-exchange.cjs; node:http costs ~3 ms more, the global fetch ~25 ms), stdin and
 * stdout are read and written directly rather than through streams (lib/direct-stdio.cjs), and
 * the transcript readers (lib/transcript-usage.cjs) load only at a turn's end.
 *
 *   hookplane hook claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--fail-open] [--url URL] [--timeout-ms N]
 *   hookplane login [--url URL] [--name MACHINE] | hookplane login --with-token [--url URL] | hookplane logout
 *   hookplane install claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--level user|project|managed] [--dir DIR] [--url URL] [--dry-run]
 *   hookplane doctor [--agent NAME] [--coding-agent AGENT] [--dir DIR] [--json]
 *   hookplane audit verify [--json] [--url URL]
 *   hookplane audit verify --bundle FILE [--public-key KEY] [--trust-unsigned] [--json]
 *   hookplane worker
 *
 * This file parses the arguments and picks the command; each command is a module of its own under
 * lib/, required only when it runs: `hook` (lib/hook.cjs, with the coding agents it speaks for),
 * `login`/`logout` (lib/login.cjs), `install` and `doctor` (lib/install.cjs, lib/doctor.cjs,
 * lib/hook-settings.cjs), `spool flush` (lib/spool-flush.cjs), `audit verify`
 * (lib/audit-verify.cjs) and `worker` (lib/worker.cjs). Every file costs a hook call ~0.1–0.3 ms
 * to find, read and compile, so the hook path is four: this one, lib/direct-stdio.cjs,
 * lib/hook.cjs and lib/http-exchange.cjs (with lib/stored-credential.cjs and lib/offline-spool.cjs).
 *
 * install writes the agent's hooks into a coding agent's settings with node's and this file's
 * absolute paths, never a bare `hookplane`: where that is not on PATH the shell exits 127, which
 * Claude Code, Codex and Gemini CLI do not treat as a refusal, so the guard would be off.
 */
"use strict";
const { readStdin, warnOrPrint, writeAndExit } = require("./lib/direct-stdio.cjs");

const USAGE = `Usage:
  hookplane hook claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--fail-open] [--url URL] [--timeout-ms N]
      Reads a Claude Code (Codex, Gemini CLI, Copilot CLI) hook's stdin JSON, asks Hookplane,
      prints its JSON answer. Copilot CLI's stdin does not name its event: add --event EVENT.
      With no answer it blocks gated calls; --fail-open lets them through, unless the agent's
      fail mode in Hookplane (kept from its last answer) says otherwise.
      Env: HOOKPLANE_URL (default http://127.0.0.1:3000, or the one login stored), HOOKPLANE_TOKEN
           (a bridge credential; default the one login stored),
           HOOKPLANE_AGENT (instead of --agent), HOOKPLANE_TIMEOUT_MS (default 590000).
  hookplane login [--url URL] [--name MACHINE]
      Signs this machine in as you: prints a link and a code to approve in the browser (single
      sign-on applies) and stores your bridge credential for this OS user (0600); hook uses it.
  hookplane login --with-token [--url URL]
      Stores the bridge credential read from stdin (checked with Hookplane first) for this OS user,
      as login does, without a browser: for CI, where an agent may not pass HOOKPLANE_TOKEN to its
      hooks (Gemini CLI with GITHUB_SHA set strips every variable named like a secret).
  hookplane logout
      Revokes that credential and forgets it.
  hookplane install claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--level user|project|managed]
                    [--dir PROJECT_DIR] [--url URL] [--dry-run]
      Fetches the agent's hooks for that coding agent from Hookplane and merges them into its
      settings file at that level (default: user; project with --dir; Copilot CLI: project only),
      keeping everything else in it; the old file is kept as a .bak. The hooks run this CLI by its
      absolute path and block when it cannot run: a bare \`hookplane\` not on PATH would let every
      call through. Records the install on the server (the agent's page lists the machine).
      --dry-run prints the file it would write. Exit 0 done, 1 written but not recorded, 2 not written.
  hookplane doctor [--agent NAME] [--coding-agent AGENT] [--dir PROJECT_DIR] [--json]
      Checks this machine: node, the CLI, the credential, every settings file with Hookplane's
      hooks (gating events bound, commands found, drift from the current export) and a test event
      decided through the installed hook. Exit 0 all ok, 1 some FAIL, 2 could not check.
  hookplane spool flush
      Sends the decisions hook took alone while Hookplane was unreachable (it does so by itself
      once Hookplane answers again).
  hookplane audit verify [--json] [--url URL]
      Seals and checks the hash chains of the audit log and the hook ledger and their signed
      heads; names the first broken row. Exit 0 intact, 1 broken, 2 could not check.
      Env: HOOKPLANE_URL, HOOKPLANE_TOKEN (an admin token).
  hookplane audit verify --bundle FILE [--public-key KEY] [--trust-unsigned] [--json]
      Checks a chain's bundle (GET /api/v1/audit/bundle) offline, with no server: every row's
      hash, every signed head, gap and anchor; names the first thing that does not verify.
      KEY: the instance's /.well-known/hookplane-ledger-keys document (a file or the JSON), a
      JWK, a PEM key or the raw key as base64url; without it the signatures are checked against
      the key inside the bundle, which shows it is whole but not whose it is. --trust-unsigned
      accepts gaps and anchors written before the instance signed them. Exit codes as above.
  hookplane worker
      Works queued runs (needs DATABASE_URL; see npm run worker).`;


function parseArgs(argv) {
  const flags = { positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--fail-open") flags.failOpen = true;
    else if (arg === "--json") flags.json = true;
    else if (arg === "--trust-unsigned") flags.trustUnsigned = true;
    else if (arg === "--dry-run") flags.dryRun = true;
    else if (arg === "--with-token") flags.withToken = true;
    else if (arg === "--help" || arg === "-h") flags.help = true;
    else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      flags[name] = value;
    } else flags.positional.push(arg);
  }
  return flags;
}

async function main() {
  let flags;
  try {
    flags = parseArgs(process.argv.slice(2));
  } catch (error) {
    return writeAndExit(2, `hookplane: ${error.message}\n${USAGE}\n`, 2);
  }
  const [command, sub] = flags.positional;
  if (flags.help || !command) {
    return writeAndExit(1, `${USAGE}\n`, command || flags.help ? 0 : 1);
  }
  if (command === "hook") {
    const { AGENTS, hookAgent } = require("./lib/hook.cjs");
    if (Object.hasOwn(AGENTS, sub ?? "")) return hookAgent(sub, flags);
  }
  if (command === "audit" && sub === "verify") return require("./lib/audit-verify.cjs").auditVerify(flags);
  if (command === "worker") return require("./lib/worker.cjs").worker();
  if (command === "spool" && sub === "flush") return require("./lib/spool-flush.cjs").spoolFlush(flags);
  if (command === "install" || command === "doctor") {
    const out = { log: (line) => warnOrPrint(1, line), error: (line) => warnOrPrint(2, line) };
    const { exchange, machineHeaders } = require("./lib/http-exchange.cjs");
    const ctx = { exchange, machineHeaders, cli: __filename, out };
    const code = command === "install" ? await require("./lib/install.cjs").install(flags, ctx) : await require("./lib/doctor.cjs").doctor(flags, ctx);
    return writeAndExit(1, "", code);
  }
  if (command === "login" || command === "logout") {
    const out = { log: (line) => warnOrPrint(1, line), error: (line) => warnOrPrint(2, line) };
    const { login, logout } = require("./lib/login.cjs");
    const url = flags.url ?? process.env.HOOKPLANE_URL ?? "http://127.0.0.1:3000";
    if (command === "login" && flags.withToken) {
      const { loginWithToken } = require("./lib/login.cjs");
      const { machineHeaders } = require("./lib/http-exchange.cjs");
      return writeAndExit(1, "", await loginWithToken({ url, token: (await readStdin()).trim(), out, headers: machineHeaders() }));
    }
    const code = command === "login" ? await login({ url, name: flags.name, out }) : await logout({ out });
    return writeAndExit(1, "", code);
  }
  // A misspelt hook command must not let a tool call through.
  writeAndExit(2, `hookplane: unknown command "${flags.positional.join(" ")}"\n${USAGE}\n`, 2);
}

main().catch((error) => {
  const failOpen = process.argv.includes("--fail-open");
  writeAndExit(2, `hookplane: ${error?.stack ?? error}\n— ${failOpen ? "allowing because --fail-open is set" : "blocking"}\n`, failOpen ? 0 : 2);
});
