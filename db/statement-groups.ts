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

export abstract class StatementGroups<W> {
  private waiting: W[] = [];
  private busy = false;

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
    try {
      if (group.length === 1) await this.runAlone(group[0]);
      else if (group.length > 1) await this.runGroup(group);
    } finally {
      // What came meanwhile goes next, with what the next turn brings.
      if (this.waiting.length > 0) setImmediate(() => void this.drain());
      else this.busy = false;
    }
  }
}
