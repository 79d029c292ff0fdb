/**
 * The layer rules of eslint.config.mjs, tried from both sides: an import each layer may make is
 * accepted, and the ones it may not make are refused with the rule's message.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, test } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root });

async function problems(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe("lib/core is pure", () => {
  test.each([
    ['import { getDatabase } from "@/db/client";', "no database or queue"],
    ['import { sql } from "drizzle-orm";', "no database or queue"],
    ['import PgBoss from "pg-boss";', "no database or queue"],
    ['import { NextResponse } from "next/server";', "no Next or React"],
    ['import { useState } from "react";', "no Next or React"],
    ['import { logger } from "@/lib/platform/logger";', "imports only lib/core"],
    ['import { startRun } from "@/lib/features/runs/run-service";', "imports only lib/core"],
    ['import { x } from "../../features/runs/run-service";', "imports only lib/core"],
  ])("refuses %s", async (line, reason) => {
    const found = await problems("lib/core/hooks/new-module.ts", `${line}\nexport const y = 1;\n`);
    expect(found.join("\n")).toContain(reason);
  });

  test("accepts the core and libraries", async () => {
    const source = 'import { z } from "zod";\nimport { dispatch } from "@/lib/core/hooks/runtime";\nimport { x } from "../outbound/outbound-guard";\nexport const y = [z, dispatch, x];\n';
    expect(await problems("lib/core/hooks/new-module.ts", source)).toEqual([]);
  });

  test("a test in the core may assemble anything", async () => {
    expect(await problems("lib/core/hooks/new-module.test.ts", 'import { getDatabase } from "@/db/client";\nexport const y = getDatabase;\n')).toEqual([]);
  });
});

describe("lib/platform imports no feature", () => {
  test("refuses a feature, accepts the core and the database", async () => {
    expect((await problems("lib/platform/api/new-module.ts", 'import { x } from "@/lib/features/agents/agent-service";\nexport const y = x;\n')).join()).toContain(
      "imports no feature",
    );
    expect(await problems("lib/platform/api/new-module.ts", 'import { x } from "@/db/client";\nimport { y } from "@/lib/core/hooks/spec";\nexport const z = [x, y];\n')).toEqual([]);
  });
});

describe("features meet through public modules", () => {
  test("refuses another feature's internals", async () => {
    const found = await problems("lib/features/costs/new-module.ts", 'import { x } from "@/lib/features/runs/run-event-writer";\nexport const y = x;\n');
    expect(found.join()).toContain("only through its public modules");
  });

  test("accepts another feature's public module and its own internals", async () => {
    const source = 'import { a } from "@/lib/features/hooks/hook-service";\nimport { b } from "@/lib/features/audit/components/ledger-search";\nimport { c } from "./chain-sealer";\nexport const y = [a, b, c];\n';
    expect(await problems("lib/features/audit/new-module.ts", source)).toEqual([]);
  });

  test("refuses a relative path out of the feature, which would hide the boundary", async () => {
    const found = await problems("lib/features/costs/components/new-module.ts", 'import { x } from "../../runs/run-event-writer";\nexport const y = x;\n');
    expect(found.join()).toContain("@/ alias");
  });
});

describe("db/ stands beneath the layers", () => {
  test.each([
    ['import { x } from "@/lib/features/audit/chain-bundle";', "db/ imports only db/"],
    ['import { x } from "@/lib/platform/stream/hub";', "db/ imports only db/"],
    ['import { x } from "@/lib/platform/config/public-url";', "db/ imports only db/"],
    ['import { x } from "@/app/layout";', "db/ imports only db/"],
    ['import { x } from "@/components/ui/button";', "db/ imports only db/"],
    ['import { x } from "../../lib/features/runs/run-service";', "@/ alias"],
  ])("refuses %s", async (line, reason) => {
    const found = await problems("db/queries/new-module.ts", `${line}\nexport const y = x;\n`);
    expect(found.join("\n")).toContain(reason);
  });

  test("accepts db/, the core, libraries and the process's foundation", async () => {
    const source = [
      'import { sql } from "drizzle-orm";',
      'import { runs } from "../schema";',
      'import { CHANNELS } from "@/db/notify-channels";',
      'import { chainHash } from "@/lib/core/audit/chain-hash";',
      'import { getConfig } from "@/lib/platform/config/config";',
      'import { logger } from "@/lib/platform/logger";',
      'import { signWithLedgerKey } from "@/lib/platform/security/ledger-signing-key";',
      "export const y = [sql, runs, CHANNELS, chainHash, getConfig, logger, signWithLedgerKey];",
    ].join("\n");
    expect(await problems("db/queries/new-module.ts", `${source}\n`)).toEqual([]);
  });

  test("a database test may assemble anything", async () => {
    expect(await problems("db/queries/new-module.db.test.ts", 'import { x } from "@/lib/features/audit/chain-bundle";\nexport const y = x;\n')).toEqual([]);
  });
});

describe("the process's foundation stays below the database", () => {
  test.each([
    ['import { getDatabase } from "@/db/client";', "stands below the database"],
    ['import { x } from "@/lib/platform/stream/hub";', "stands below the database"],
    ['import { x } from "@/lib/features/secrets/secret-store";', "imports no feature"],
  ])("refuses %s", async (line, reason) => {
    const found = await problems("lib/platform/security/ledger-signing-key.ts", `${line}\nexport const y = 1;\n`);
    expect(found.join("\n")).toContain(reason);
  });

  test("accepts the core, libraries and the foundation", async () => {
    const source = 'import pino from "pino";\nimport { getConfig } from "@/lib/platform/config/config";\nimport { chainHash } from "@/lib/core/audit/chain-hash";\nimport { createSecretBox } from "./secret-box";\nexport const y = [pino, getConfig, chainHash, createSecretBox];\n';
    expect(await problems("lib/platform/security/ledger-signing-key.ts", source)).toEqual([]);
  });
});

describe("components/ imports no feature", () => {
  test.each([
    ['import { x } from "@/lib/features/hooks/hook-service";'],
    ['import { x } from "../lib/features/approvals/components/use-pending-approvals";'],
    ['import { x } from "../../lib/features/hooks/components/hook-badges";'],
  ])("refuses %s", async (line) => {
    const found = await problems("components/ui/new-module.tsx", `${line}\nexport const y = x;\n`);
    expect(found.join("\n")).toContain("components/ imports no feature");
  });

  test("accepts the platform, the core, the database's types and other components", async () => {
    const source = 'import type { ActionState } from "@/lib/platform/api/action-state";\nimport type { Role } from "@/db/schema";\nimport { diffLines } from "./line-diff";\nimport { Button } from "@/components/ui/button";\nexport const y = [diffLines, Button] as unknown as [ActionState, Role];\n';
    expect(await problems("components/ui/new-module.tsx", source)).toEqual([]);
  });
});

/** The files of a folder under the root, recursively, tests left out (they may assemble anything). */
function sources(folder: string): string[] {
  return (readdirSync(path.join(root, folder), { recursive: true }) as string[])
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => path.join(folder, f));
}

describe("approvals own their lifecycle (issue 31)", () => {
  test("lint refuses approvals any module of runs, public ones included", async () => {
    const found = await problems("lib/features/approvals/new-module.ts", 'import { startRun } from "@/lib/features/runs/run-service";\nexport const y = startRun;\n');
    expect(found.join()).toContain("only through its public modules");
    expect(await problems("lib/features/approvals/new-module.ts", 'import { x } from "@/lib/features/secrets/secret-port";\nexport const y = x;\n')).toEqual([]);
  });

  test("approvals import nothing of runs: runs, above them, wakes its parked run through a waker it installs", () => {
    const reaching = sources("lib/features/approvals").filter((file) =>
      /from\s+["'](@\/lib\/features\/runs\/|(\.\.\/)+runs\/)/.test(readFileSync(path.join(root, file), "utf8")),
    );
    expect(reaching).toEqual([]);
  });

  test("a timeout has one reason text, written once by the core's timeout rule", () => {
    const lines = sources("lib").flatMap((file) =>
      readFileSync(path.join(root, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (line.includes("no decision") ? [`${file}:${i + 1}`] : [])),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^lib\/core\/hooks\/approval-timeout\.ts:/);
  });
});

describe("each feature imports only the features it declares (issue 31)", () => {
  /** Every import of one feature's non-test files into another feature: from, to, the file and what it names. */
  const imports = sources("lib/features").flatMap((file) => {
    const from = file.split(path.sep)[2];
    const text = readFileSync(path.join(root, file), "utf8");
    return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].flatMap(([, specifier]) => {
      const target = specifier.startsWith("@/")
        ? specifier.slice(2)
        : specifier.startsWith(".")
          ? path.relative(root, path.resolve(root, path.dirname(file), specifier))
          : undefined;
      const [lib, features, to, ...module] = target?.split(/[\\/]/) ?? [];
      return lib === "lib" && features === "features" && to !== from ? [{ from, to, file, module: module.join("/") }] : [];
    });
  });
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) edges.set(from, (edges.get(from) ?? new Set()).add(to));

  test("the graph is not empty (the scan sees the imports it judges)", () => {
    expect(edges.get("runs")?.has("approvals")).toBe(true);
  });

  test("no two features import each other", () => {
    const pairs = [...edges].flatMap(([from, tos]) => [...tos].filter((to) => from < to && edges.get(to)?.has(from)).map((to) => `${from} <-> ${to}`));
    expect(pairs).toEqual([]);
  });

  test("no cycle", () => {
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]) => {
      if (trail.includes(node)) return void cycles.push([...trail.slice(trail.indexOf(node)), node].join(" -> "));
      for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
    };
    for (const node of edges.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  test("no feature but runs imports runs, except the bridge's run session", () => {
    const reaching = imports.filter(({ from, to, module }) => to === "runs" && !(from === "bridge" && module === "run-session")).map(({ file, module }) => `${file} -> runs/${module}`);
    expect(reaching).toEqual([]);
  });

  test("every feature declares the features it uses, and the declared edges make no cycle", async () => {
    const config = pathToFileURL(path.join(root, "eslint.config.mjs")).href;
    const { FEATURE_API, FEATURE_DEPS } = (await import(config)) as { FEATURE_API: Record<string, string[]>; FEATURE_DEPS: Record<string, string[]> };
    expect(Object.keys(FEATURE_DEPS).sort()).toEqual(Object.keys(FEATURE_API).sort());
    const declared = (name: string) => FEATURE_DEPS[name].map((dep) => dep.split("/")[0]);
    const cyclic = (node: string, trail: string[]): boolean => trail.includes(node) || declared(node).some((next) => cyclic(next, [...trail, node]));
    expect(Object.keys(FEATURE_DEPS).filter((name) => cyclic(name, []))).toEqual([]);
  });

  test("lint accepts a declared edge and refuses an undeclared one, public module or not", async () => {
    const importing = (file: string, specifier: string) => problems(file, `import { x } from "${specifier}";\nexport const y = x;\n`);
    expect(await importing("lib/features/bridge/new-module.ts", "@/lib/features/runs/run-session")).toEqual([]);
    expect(await importing("lib/features/agents/new-module.ts", "@/lib/features/hooks/hook-service")).toEqual([]);
    // Public modules, but not along a declared edge: refused.
    expect((await importing("lib/features/bridge/new-module.ts", "@/lib/features/runs/run-service")).join()).toContain("FEATURE_DEPS");
    expect((await importing("lib/features/hooks/new-module.ts", "@/lib/features/agents/agent-service")).join()).toContain("FEATURE_DEPS");
    expect((await importing("lib/features/costs/new-module.ts", "@/lib/features/runs/run-session")).join()).toContain("FEATURE_DEPS");
    expect((await importing("lib/features/runs/new-module.ts", "@/lib/features/bridge/session-ingest")).join()).toContain("FEATURE_DEPS");
  });
});
