/**
 * An async hook's run (approve, command, webhook, code, tool...): its own secrets and redactor, the
 * dispatch's lazily built view of the call, and a deadline. Only async hooks get a timer and an
 * abort link, both removed when the hook settles.
 */
import { awaitApproval } from "./executors/approve";
import type { HookContext, HookEvent } from "./event";
import type { CompiledHook } from "./compiled-hooks";
import type { ActionOutcome, ActionRun, AsyncExecutor, ExecutorOptions } from "./executors/types";
import type { SecretValue } from "./ports";
import { createRedactor, noRedaction, type Redactor } from "./redact";
import type { RuntimeHook } from "./runtime-types";

/** What an async run reads of its dispatch: the call as it stands, built once per dispatch. */
export interface CallView {
  readonly event: HookEvent;
  readonly options: ExecutorOptions;
  contextFor(dialect: RuntimeHook["dialect"]): HookContext;
  subjectJson(): string;
  subjectMayContain(needle: string): boolean;
  templateVars(): Record<string, unknown>;
}

/** The ActionRun of one async hook: its own secrets and redactor, the dispatch's lazy context. */
export class AsyncRun implements ActionRun {
  readonly hook: RuntimeHook;
  readonly shadow: boolean;
  readonly event: HookEvent;
  readonly options: ExecutorOptions;
  redactor: Redactor = noRedaction;
  private resolved: Promise<ReadonlyMap<string, SecretValue>> | undefined;

  constructor(
    private readonly dispatch: CallView,
    private readonly compiled: CompiledHook,
  ) {
    this.hook = compiled.spec;
    this.shadow = compiled.shadow;
    this.event = dispatch.event;
    this.options = dispatch.options;
  }

  context = () => this.dispatch.contextFor(this.hook.dialect);
  subjectJson = () => this.dispatch.subjectJson();
  subjectMayContain = (needle: string) => this.dispatch.subjectMayContain(needle);
  templateVars = () => this.dispatch.templateVars();

  /** Only the secrets this hook names are ever resolved; each value found joins the redactor. */
  secrets(): Promise<ReadonlyMap<string, SecretValue>> {
    return (this.resolved ??= this.resolveSecrets());
  }

  private async resolveSecrets(): Promise<ReadonlyMap<string, SecretValue>> {
    const names = this.compiled.action?.secretNames ?? [];
    const secrets = new Map<string, SecretValue>();
    const port = this.options.secrets;
    if (!port || names.length === 0) return secrets;
    for (const name of names) {
      const found = await port.get(name);
      if (found === undefined) continue;
      secrets.set(name, typeof found === "string" ? { value: found, hosts: [] } : found);
    }
    this.redactor = createRedactor([...secrets.values()].map((s) => s.value));
    return secrets;
  }
}

/**
 * Runs an async executor under the run's signal and, when it has one, the hook's deadline. The
 * work's own rejection after a deadline is swallowed; the timer and the listener are always removed.
 */
export async function runWithDeadline(executor: AsyncExecutor, run: ActionRun, parent: AbortSignal | undefined): Promise<ActionOutcome> {
  if (parent?.aborted) return { failure: "aborted (the run was cancelled)" };
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  parent?.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = Promise.resolve()
      .then(() => executor.run(run, controller.signal))
      .catch((error): ActionOutcome => ({ failure: `the hook threw: ${describe(error)}` }));
    const ms = executor.timeoutMs;
    if (ms === undefined) return await work;
    const deadline = new Promise<ActionOutcome>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ failure: `timed out after ${ms} ms`, timedOut: true });
      }, ms);
    });
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onAbort);
  }
}

/** Claude Code's `ask`: the default approval policy (30 minutes, then deny). */
export function askExecutor(message: string | undefined): AsyncExecutor {
  return { async: true, timeoutMs: undefined, run: (run, signal) => awaitApproval(run, signal, { message }) };
}


export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
