import { defineConfig } from "vitest/config";
import path from "node:path";

const alias = { "@": path.resolve(import.meta.dirname) };
// Tests are quiet unless asked (LOG_LEVEL=debug npx vitest ...); servers they spawn inherit it.
const env = { LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" };

// Two projects: `unit` is pure code (lib/ without a database); `db` talks to PGlite, or to the
// PostgreSQL named by DATABASE_URL, so CI can run it twice.
// Test files run two at a time (vitest's default on a 2-core machine is one): a file spends much of
// its time waiting on its database, a CLI or a server it started, and each has its own database,
// CLI config folder and kernel-assigned ports. Two, not one per core: the files' pools (and the
// servers they start) stay well within PostgreSQL's default 100 connections on any machine.
export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "test/**/*.test.ts", "deploy/**/*.test.ts", "db/**/*.test.ts"],
          exclude: ["**/*.db.test.ts", "node_modules/**"],
          environment: "node",
          env,
          setupFiles: ["test/cli-config-dir.ts"],
          testTimeout: 20_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "db",
          include: ["**/*.db.test.ts"],
          exclude: ["node_modules/**"],
          environment: "node",
          env,
          setupFiles: ["test/cli-config-dir.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
