/** The process logger (pino). LOG_LEVEL sets the level; tests keep it quiet. */
import pino from "pino";

export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? "silent" : "info"),
  base: { app: "hookplane" },
});
