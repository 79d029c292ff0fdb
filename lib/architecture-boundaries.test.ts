/**
 * The layer rules of eslint.config.mjs, tried from both sides: an import each layer may make is
 * accepted, and the ones it may not make are refused with the rule's message.
 */
import path from "node:path";
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
    const source = 'import { a } from "@/lib/features/runs/components/run-format";\nimport { b } from "@/lib/features/costs/components/cost-report";\nimport { c } from "./price-table";\nexport const y = [a, b, c];\n';
    expect(await problems("lib/features/costs/new-module.ts", source)).toEqual([]);
  });

  test("refuses a relative path out of the feature, which would hide the boundary", async () => {
    const found = await problems("lib/features/costs/components/new-module.ts", 'import { x } from "../../runs/run-event-writer";\nexport const y = x;\n');
    expect(found.join()).toContain("@/ alias");
  });
});
