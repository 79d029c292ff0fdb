/**
 * The group commit's queue (db/statement-groups.ts) without a database: what arrives while a group
 * runs goes as the next group, that group is sent before the last one's callers are answered (the
 * database works while this thread answers them), one group runs at a time, and a failure reaches
 * its own caller only.
 */
import { expect, test } from "vitest";
import { StatementGroups, type Waiting } from "./statement-groups";

type Entry = { text: string } & Waiting<string>;

/** Records what happens in order; each group waits until the test lets it finish. */
class Recorder extends StatementGroups<Entry> {
  log: string[] = [];

  constructor(elsewhere = true) {
    super(elsewhere);
  }
  running = 0;
  maxRunning = 0;
  private finish: (() => void)[] = [];

  run(text: string): Promise<string> {
    return new Promise((resolve, reject) => this.enqueue({ text, resolve, reject }));
  }

  /** Lets the oldest group still running finish. */
  release(): void {
    this.finish.shift()?.();
  }

  private async send(entries: Entry[]): Promise<void> {
    this.log.push(`send ${entries.map((e) => e.text).join("+")}`);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise<void>((resolve) => this.finish.push(resolve));
    this.running--;
    for (const e of entries) {
      if (e.text.startsWith("bad")) e.reject(new Error(`${e.text} failed`));
      else e.resolve(`${e.text} done`);
    }
  }

  protected runAlone(entry: Entry): Promise<void> {
    return this.send([entry]);
  }

  protected runGroup(group: Entry[]): Promise<void> {
    return this.send(group);
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test("what arrives while a group runs is the next group, sent before the last group's callers hear back", async () => {
  const q = new Recorder();
  const answered = (p: Promise<string>) => p.then((v) => void q.log.push(`answer ${v}`), (e: Error) => void q.log.push(`error ${e.message}`));
  const first = [answered(q.run("a")), answered(q.run("b"))];
  await turn();
  expect(q.log).toEqual(["send a+b"]);
  const second = [answered(q.run("c")), answered(q.run("bad-d")), answered(q.run("e"))];
  await turn();
  // One group at a time: c, bad-d and e wait for a+b.
  expect(q.log).toEqual(["send a+b"]);
  q.release();
  await Promise.all(first);
  expect(q.log).toEqual(["send a+b", "send c+bad-d+e", "answer a done", "answer b done"]);
  q.release();
  await Promise.all(second);
  expect(q.log.slice(4)).toEqual(["answer c done", "error bad-d failed", "answer e done"]);
  expect(q.maxRunning).toBe(1);
});

test("a database on this thread: the last group's callers hear back first, then the next group goes", async () => {
  const q = new Recorder(false);
  const answered = (p: Promise<string>) => p.then((v) => void q.log.push(`answer ${v}`));
  const first = answered(q.run("a"));
  await turn();
  const second = answered(q.run("b"));
  q.release();
  await first;
  expect(q.log).toEqual(["send a", "answer a done"]);
  await turn();
  expect(q.log).toEqual(["send a", "answer a done", "send b"]);
  q.release();
  await second;
  expect(q.maxRunning).toBe(1);
});

test("with nothing waiting the queue goes idle, and the next statement starts a group of its own after a turn", async () => {
  const q = new Recorder();
  const one = q.run("x");
  await turn();
  q.release();
  expect(await one).toBe("x done");
  const two = q.run("y");
  expect(q.log).toEqual(["send x"]);
  await turn();
  expect(q.log).toEqual(["send x", "send y"]);
  q.release();
  expect(await two).toBe("y done");
});
