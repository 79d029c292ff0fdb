/** The process logger (pino). LOG_LEVEL sets the level (vitest.config.ts keeps tests quiet). */
import pino from "pino";
import { logLevel } from "@/lib/platform/config/config";

export const logger = pino({
  level: logLevel(),
  base: { app: "hookplane" },
});
