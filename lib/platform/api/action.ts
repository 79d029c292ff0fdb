/**
 * The server actions' edge, written once (the twin of `apiRoute`): refuse text the database cannot
 * store, check the caller's role, read and validate the input with zod, run the action, revalidate
 * the pages it changed, and redirect when it says so. Every failure becomes a message (and, for zod
 * or AppError issues, per-field errors) the form shows; nothing thrown escapes as "something went
 * wrong" unless it was unexpected, and then it is logged.
 *
 * `formAction` makes the `(prevState, form)` action a form's `useActionState` calls; `action` one
 * that a component calls directly with an input object. Both run the same edge.
 */
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { z } from "zod";
import { getDatabase, type Db } from "@/db/client";
import { errorToActionState, issuesToActionState, refuseUnsafeInput, type ActionState } from "@/lib/platform/api/action-state";
import { zodIssues, type Issue } from "@/lib/core/issues";
import { requireActionRole } from "@/lib/platform/auth/current-principal";
import type { Access, Principal } from "@/lib/platform/auth/roles";

/** What an action may answer: a state for its form, or a page to go to once it succeeded. */
export type ActionOutcome = ActionState | { redirectTo: string };

type Raw = FormData | Record<string, unknown>;

export interface ActionOptions<S extends z.ZodType, R extends Access | "public"> {
  /** The least role that may call it; `public` for signing in and the first-run setup. */
  role: R;
  /** The input's schema, applied to what `read` returns. */
  input: S;
  /**
   * Turns the raw call into the schema's input. Default: a form's fields as an object (files
   * included, which a string field refuses), an object as it is. Throw an AppError to refuse, or
   * return `readWithIssues(value, issues)` for a field it could not read (bad JSON): those issues
   * are shown together with the schema's own for the rest of the form, not instead of them.
   */
  read?: (raw: Raw) => unknown;
  /**
   * `all` (default): every field of the raw call is checked for unstorable text, not only those
   * the schema reads. `input`: only what `read` returned (a sign-in's `next` is a redirect target,
   * checked as one, and never stored).
   */
  check?: "all" | "input";
  /** Pages whose cached render the action changes; revalidated after it succeeded. */
  revalidate?: string[] | ((input: z.infer<S>) => string[]);
}

export interface ActionContext<S extends z.ZodType, R extends Access | "public"> {
  db: Db;
  principal: R extends "public" ? undefined : Principal;
  input: z.infer<S>;
  /** The form as sent, for fields that are not input (a redirect target). */
  raw: Raw;
}

const READ_ISSUES = Symbol("read issues");

interface ReadWithIssues {
  [READ_ISSUES]: Issue[];
  value: unknown;
}

/** What `read` returns when some fields could not be read: the rest is still validated. */
export function readWithIssues(value: unknown, issues: Issue[]): unknown {
  return { [READ_ISSUES]: issues, value } satisfies ReadWithIssues;
}

function splitReadIssues(candidate: unknown): { value: unknown; issues: Issue[] } {
  if (candidate !== null && typeof candidate === "object" && READ_ISSUES in candidate) {
    const read = candidate as ReadWithIssues;
    return { value: read.value, issues: read[READ_ISSUES] };
  }
  return { value: candidate, issues: [] };
}

function formFields(form: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    // Next adds its own `$ACTION_...` fields to a form bound to an action.
    if (!key.startsWith("$ACTION")) fields[key] ??= value;
  }
  return fields;
}

type ActionBody<S extends z.ZodType, R extends Access | "public"> = (context: ActionContext<S, R>) => Promise<ActionOutcome>;

/** A server action bound to a form: `useActionState(formAction(...), {})`. */
export function formAction<S extends z.ZodType, R extends Access | "public">(
  options: ActionOptions<S, R>,
  fn: ActionBody<S, R>,
): (prev: ActionState, form: FormData) => Promise<ActionState> {
  return (_prev, form) => runAction(options, fn, form instanceof FormData ? form : {});
}

/** A server action called with one input object: `await setHookEnabledAction({id, enabled})`. */
export function action<S extends z.ZodType, R extends Access | "public">(
  options: ActionOptions<S, R>,
  fn: ActionBody<S, R>,
): (input: z.input<S>) => Promise<ActionState> {
  return (input) => runAction(options, fn, input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {});
}

async function runAction<S extends z.ZodType, R extends Access | "public">(options: ActionOptions<S, R>, fn: ActionBody<S, R>, raw: Raw): Promise<ActionState> {
  if ((options.check ?? "all") === "all") {
    const refused = refuseUnsafeInput(raw);
    if (refused) return refused;
  }
  let outcome: ActionOutcome;
  let input: z.infer<S>;
  try {
    const principal = options.role === "public" ? undefined : await requireActionRole(options.role as Access);
    const read = splitReadIssues(options.read ? options.read(raw) : raw instanceof FormData ? formFields(raw) : raw);
    const candidate = read.value;
    const unsafe = refuseUnsafeInput(candidate);
    if (unsafe) return unsafe;
    const parsed = options.input.safeParse(candidate);
    // Issues of fields `read` could not read come first (they are in form order too), and a
    // schema complaint about the same field (missing, since unread) is not said twice.
    const unread = new Set(read.issues.map((i) => i.path));
    const issues = [...read.issues, ...(parsed.success ? [] : zodIssues(parsed.error).filter((i) => !unread.has(i.path)))];
    if (issues.length > 0 || !parsed.success) return issuesToActionState(issues);
    input = parsed.data;
    const { db } = await getDatabase();
    outcome = await fn({ db, principal: principal as ActionContext<S, R>["principal"], input, raw });
  } catch (error) {
    return errorToActionState(error);
  }
  const failed = !("redirectTo" in outcome) && outcome.ok !== true && outcome.message !== undefined;
  if (!failed) {
    const paths = typeof options.revalidate === "function" ? options.revalidate(input) : (options.revalidate ?? []);
    for (const path of paths) revalidatePath(path, path.includes("[") ? "page" : undefined);
  }
  // redirect() throws Next's own signal: outside the try, so nothing mistakes it for a failure.
  if ("redirectTo" in outcome) redirect(outcome.redirectTo);
  return outcome;
}
