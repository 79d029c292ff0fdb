/**
 * What the shell sandbox costs and what it buys (lib/platform/security/shell-sandbox.ts):
 * - ms per shell step (`true` through the shell tool), plain `sh -c` vs this machine's sandbox;
 * - no orphans: a worker process runs `sleep 3; echo done >> file` as a shell step and is killed
 *   with SIGKILL 1 s in; how long until no process of the step is left, and whether the file was
 *   written anyway, over several trials, sandboxed and (the control) plain.
 * `npm run bench:sandbox [trials]` (default 5).
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { plainShell, type ShellLauncher } from "@/lib/core/hooks/ports";
import { loadConfig } from "@/lib/platform/config/config";
import { serverShellPolicy } from "@/lib/platform/security/code-execution";
import { detectShellSandbox } from "@/lib/platform/security/shell-sandbox";
import { killLeftovers, processesWith, startStepWorker, type StepLaunch } from "@/test/step-processes";
import { runShell } from "@/lib/features/tools/shell-tool";
import { summarize } from "./bench-support";

const trials = Number(process.argv[2] ?? 5);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number) => Math.round(n * 10) / 10;

async function stepLatency(launcher: ShellLauncher, workspace: string, n = 30) {
  const samples: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const started = performance.now();
    const result = await runShell("true", { workspaceDir: workspace, timeoutMs: 10_000, outputCap: 1000, launcher });
    if (result.isError) throw new Error(`step failed: ${result.output}`);
    if (i >= 3) samples.push(performance.now() - started); // the first few warm up
  }
  const s = summarize(samples);
  return `p50 ${round(s.p50)} ms, p95 ${round(s.p95)} ms (n=${s.n})`;
}

/** One kill -9 trial: ms from the kill until the step's processes are gone (or "survived"), and the file. */
async function orphanTrial(kind: "tool" | "command", launch: StepLaunch) {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-bench-orphan-")));
  const markers = [`sleep 3.000${process.pid}${Date.now() % 100000}`];
  try {
    const { worker } = await startStepWorker({ workspace, kind, launch, command: `${markers[0]}; echo done >> file` });
    const sleeping = () => processesWith(markers, [worker.pid!]).some((p) => p.cmdline.startsWith("sleep "));
    while (!sleeping()) await sleep(10);
    await sleep(1_000);
    const exited = new Promise((r) => worker.once("exit", r));
    const killedAt = performance.now();
    worker.kill("SIGKILL");
    await exited;
    let goneAfter: number | undefined;
    while (performance.now() - killedAt < 2_000) {
      if (processesWith(markers).length === 0) {
        goneAfter = performance.now() - killedAt;
        break;
      }
      await sleep(5);
    }
    await sleep(Math.max(0, 3_500 - (performance.now() - killedAt)));
    return { goneAfter, written: existsSync(path.join(workspace, "file")) };
  } finally {
    killLeftovers(markers);
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function main() {
  const sandbox = detectShellSandbox();
  console.log(`sandbox: ${sandbox.kind}; runs as ${sandbox.runAs?.name ?? "the server's user"}; orphan guard: ${sandbox.orphanGuard}${sandbox.notes.length ? `; notes: ${sandbox.notes.join("; ")}` : ""}`);
  console.log(`load average: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} on ${os.cpus().length} cores`);

  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-bench-step-")));
  try {
    const sandboxed = serverShellPolicy(loadConfig({ ...process.env, HOOKPLANE_ALLOW_CODE_EXECUTION: "1" })).launcher;
    console.log(`shell step, plain sh -c:  ${await stepLatency(plainShell, workspace)}`);
    console.log(`shell step, sandboxed:    ${await stepLatency(sandboxed, workspace)}`);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }

  for (const launch of ["sandbox", "supervisor", "plain"] as const) {
    for (const kind of ["tool", "command"] as const) {
      const results = [];
      for (let i = 0; i < trials; i++) results.push(await orphanTrial(kind, launch));
      const gone = results.filter((r) => r.goneAfter !== undefined).map((r) => r.goneAfter!);
      const s = summarize(gone);
      console.log(
        `kill -9 of the worker, ${kind} step, ${launch}: ${gone.length}/${trials} trees gone within 2 s` +
          (gone.length ? ` (after p50 ${round(s.p50)} ms, max ${round(Math.max(...gone))} ms)` : "") +
          `; file written in ${results.filter((r) => r.written).length}/${trials}`,
      );
    }
  }
}

await main();
