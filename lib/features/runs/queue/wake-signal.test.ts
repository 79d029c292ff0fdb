import { describe, expect, it } from "vitest";
import { createWakeSignal } from "./wake-signal";

const elapsed = async (work: Promise<void>) => {
  const started = performance.now();
  await work;
  return performance.now() - started;
};

describe("wake signal", () => {
  it("wakes a waiting loop at once", async () => {
    const wake = createWakeSignal();
    setTimeout(() => wake.notify(), 20);
    expect(await elapsed(wake.wait(5_000))).toBeLessThan(1_000);
  });

  it("keeps a notify that came while the loop was busy, once", async () => {
    const wake = createWakeSignal();
    wake.notify();
    wake.notify();
    expect(await elapsed(wake.wait(5_000))).toBeLessThan(50);
    // Both notifies were consumed by that one wait: the next one sleeps its full timeout.
    expect(await elapsed(wake.wait(100))).toBeGreaterThanOrEqual(90);
  });

  it("returns after the timeout when nothing comes", async () => {
    const wake = createWakeSignal();
    expect(await elapsed(wake.wait(60))).toBeGreaterThanOrEqual(50);
  });
});
