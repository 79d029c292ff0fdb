import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWakeSignal } from "./wake-signal";

/** Whether `work` has settled after the clock moved `ms` (fake timers: no real time, no flakes). */
async function settledAfter(work: Promise<void>, ms: number): Promise<boolean> {
  let settled = false;
  void work.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

describe("wake signal", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("wakes a waiting loop at once, long before its timeout", async () => {
    const wake = createWakeSignal();
    const waiting = wake.wait(5_000);
    expect(await settledAfter(waiting, 1_000)).toBe(false);
    wake.notify();
    expect(await settledAfter(waiting, 0)).toBe(true);
  });

  it("keeps a notify that came while the loop was busy, once", async () => {
    const wake = createWakeSignal();
    wake.notify();
    wake.notify();
    expect(await settledAfter(wake.wait(5_000), 0)).toBe(true);
    // Both notifies were consumed by that one wait: the next one sleeps its full timeout.
    const next = wake.wait(100);
    expect(await settledAfter(next, 99)).toBe(false);
    expect(await settledAfter(next, 1)).toBe(true);
  });

  it("returns after the timeout when nothing comes", async () => {
    const wake = createWakeSignal();
    const waiting = wake.wait(60);
    expect(await settledAfter(waiting, 59)).toBe(false);
    expect(await settledAfter(waiting, 1)).toBe(true);
  });
});
