/**
 * Batched statements in a commit group (db/statement-groups.ts). A statement's fixed costs in the
 * database (its executor started and ended, its plan checked, its EXECUTE parsed) were a quarter
 * of PostgreSQL's CPU on the hook path, paid once per hook call: every call's write is the same
 * statement of several CTEs (db/queries/run-events.ts). A statement written to take its input as
 * JSON arrays, one element per row, can instead be run once for many callers: the calls of one
 * group with the same text go as one execution whose parameters are their arrays joined, and each
 * caller gets the rows the statement returns under its key (`batch_key`).
 *
 * The statement itself must make that sound: every parameter a JSON array whose elements carry the
 * caller's key where they need it, and the rows of one key unaffected by another key's. Calls of
 * one key never share a batch (the second goes in a batch of its own, after the first, in the same
 * group): a statement may treat its key as unique (an UPDATE ... FROM touches a row once).
 */

/** A statement of a group, as the group's database sends it. */
export interface GroupedStatement {
  text: string;
  params: unknown[];
  /** Set when the statement may share its execution with others of its text (see above). */
  batchKey?: string;
}

/** What one execution in a group runs: one caller's statement, or several callers' batched. */
export interface GroupUnit<E extends GroupedStatement> {
  text: string;
  params: unknown[];
  /** The callers whose rows it returns: one entry as itself, or the batch's, each taking the rows of its key. */
  members: E[];
  batched: boolean;
}

/**
 * The group's executions in order: a batch stands where its first member stood (the statements of
 * one group were all in flight at once, so no caller awaits another's: their order is free).
 */
export function groupUnits<E extends GroupedStatement>(group: readonly E[]): GroupUnit<E>[] {
  const units: GroupUnit<E>[] = [];
  // The open batches of each text: a call joins the first one that holds no call of its key.
  const open = new Map<string, { members: E[]; keys: Set<string> }[]>();
  for (const entry of group) {
    if (entry.batchKey === undefined) {
      units.push({ text: entry.text, params: entry.params, members: [entry], batched: false });
      continue;
    }
    let batches = open.get(entry.text);
    if (!batches) open.set(entry.text, (batches = []));
    const batch = batches.find((b) => !b.keys.has(entry.batchKey!));
    if (batch) {
      batch.members.push(entry);
      batch.keys.add(entry.batchKey);
    } else {
      const members = [entry];
      batches.push({ members, keys: new Set([entry.batchKey]) });
      units.push({ text: entry.text, params: entry.params, members, batched: true });
    }
  }
  for (const unit of units) if (unit.batched && unit.members.length > 1) unit.params = joinedParams(unit.members);
  return units;
}

/**
 * Refuses a batched call whose parameters are not all JSON arrays' texts: checked where the call
 * is made (executeStatement), so the fault is its caller's alone and never a group's.
 */
export function assertBatchable(params: readonly unknown[]): void {
  params.forEach((text, i) => {
    if (typeof text !== "string" || !text.startsWith("[") || !text.endsWith("]")) throw new TypeError(`a batched statement's parameter $${i + 1} must be a JSON array`);
  });
}

/** Each parameter position's JSON arrays joined into one (their texts spliced, nothing parsed again). */
function joinedParams(members: readonly GroupedStatement[]): string[] {
  for (const member of members) assertBatchable(member.params);
  return members[0].params.map((_, i) => {
    const parts: string[] = [];
    for (const member of members) {
      const text = member.params[i] as string;
      if (text.length > 2) parts.push(text.slice(1, -1));
    }
    return `[${parts.join(",")}]`;
  });
}

/** Settles a unit's callers with its rows: a batch's each with the rows of its key, in order. */
export function settleUnit<E extends GroupedStatement & { resolve: (rows: never) => void }>(unit: GroupUnit<E>, rows: Record<string, unknown>[]): void {
  if (!unit.batched || unit.members.length === 1) {
    unit.members[0].resolve(rows as never);
    return;
  }
  const byKey = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    const key = String(row.batch_key);
    const list = byKey.get(key);
    if (list) list.push(row);
    else byKey.set(key, [row]);
  }
  for (const member of unit.members) member.resolve((byKey.get(member.batchKey!) ?? []) as never);
}
