/**
 * A level-triggered wake-up for one waiting loop: a notify() that arrives while the loop is busy
 * (say, in the middle of a fetch) is kept, so the next wait() returns at once instead of missing it.
 */
export interface WakeSignal {
  notify(): void;
  /** Resolves on the next notify (or a pending one), or after `timeoutMs`. */
  wait(timeoutMs: number): Promise<void>;
}

export function createWakeSignal(): WakeSignal {
  let pending = false;
  let wakeWaiter: (() => void) | undefined;
  return {
    notify() {
      pending = true;
      wakeWaiter?.();
    },
    async wait(timeoutMs) {
      if (!pending) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            wakeWaiter = undefined;
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          wakeWaiter = done;
        });
      }
      pending = false;
    },
  };
}
