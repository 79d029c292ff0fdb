/**
 * The queue of a group commit, on either database: a statement waits while the last group runs
 * (or for one turn of the event loop, when none does), and what came meanwhile goes together as
 * the next group, at most MAX_GROUP. One group runs at a time. How a group and a lone statement
 * are sent is the database's (db/client.ts for PGlite, db/postgres-group-commit.ts for PostgreSQL).
 */

/** The most statements one group runs (a bound on one query's size and on the latency it adds). */
const MAX_GROUP = 64;

/** A caller waiting on its statement's rows. */
export interface Waiting<T> {
  resolve: (rows: T) => void;
  reject: (error: unknown) => void;
}

export abstract class StatementGroups<W extends Waiting<never>> {
  private waiting: W[] = [];
  private busy = false;

  /**
   * `elsewhere`: the database runs apart from this thread (PostgreSQL, PGlite on its own thread),
   * so the next group is sent before the last one's callers are answered. PGlite on this thread
   * would run that group before the callers' answers went out: there they are answered first.
   */
  constructor(private readonly elsewhere: boolean) {}

  protected enqueue(entry: W): void {
    this.waiting.push(entry);
    if (!this.busy) {
      this.busy = true;
      setImmediate(() => void this.drain());
    }
  }

  /** Sends one statement on its own and settles its caller. */
  protected abstract runAlone(entry: W): Promise<void>;
  /** Sends two or more together and settles each caller. */
  protected abstract runGroup(group: W[]): Promise<void>;

  private async drain(): Promise<void> {
    const group = this.waiting.splice(0, MAX_GROUP);
    // Elsewhere, the callers are answered after the next group is on its way: the database works
    // on that group while this thread goes on with these callers' requests. Settled at once, their
    // continuations ran first and the database sat idle meanwhile (a PGlite thread was idle a
    // third of the time under bench:ingest's 50 sessions).
    const answers: (() => void)[] = [];
    if (this.elsewhere) {
      for (const entry of group) {
        const { resolve, reject } = entry;
        entry.resolve = (rows) => void answers.push(() => resolve(rows));
        entry.reject = (error) => void answers.push(() => reject(error));
      }
    }
    try {
      if (group.length === 1) await this.runAlone(group[0]);
      else if (group.length > 1) await this.runGroup(group);
    } finally {
      // What came while this group ran goes next (elsewhere at once; here after the callers'
      // answers, with what the next turn brings); what its callers send joins the one after.
      if (this.waiting.length === 0) this.busy = false;
      else if (this.elsewhere) void this.drain();
      else setImmediate(() => void this.drain());
      for (const answer of answers) answer();
    }
  }
}
