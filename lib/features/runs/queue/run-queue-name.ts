/** The pg-boss queue of run wake-ups (run-queue.ts), named apart so the metrics scrape can count it without loading the queue. */
export const RUN_QUEUE = "hookplane-run";
