/**
 * gitleaks' rules as Hookplane runs them (gitleaks-scan.ts), on gitleaks' own validation cases
 * (test/fixtures/detectors/gitleaks, ORIGIN.md): each rule finds a secret in every text its Go
 * source says holds one and in none it says does not. Then the whole `secrets` detector on the
 * same texts, and on the READMEs of every installed package.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { secrets } from "../secrets";
import { GITLEAKS_RULES, scanGitleaks } from "./gitleaks-scan";

interface Case {
  rule: string;
  secret: boolean;
  text: string;
}
const CASES: Case[] = JSON.parse(readFileSync(path.join(process.cwd(), "test/fixtures/detectors/gitleaks/cases.json"), "utf8"));

describe("gitleaks' rules on gitleaks' cases", () => {
  it("agree with gitleaks on every case of every rule", () => {
    const disagreements: string[] = [];
    for (const c of CASES) {
      const found = scanGitleaks(c.text).some((f) => f.rule === c.rule);
      if (found !== c.secret) disagreements.push(`${c.rule}: ${c.secret ? "missed" : "flagged"}: ${c.text.slice(0, 120)}`);
    }
    expect({ cases: CASES.length, withSecret: CASES.filter((c) => c.secret).length, rules: new Set(CASES.map((c) => c.rule)).size }).toEqual({ cases: 6289, withSecret: 5970, rules: 213 });
    expect(GITLEAKS_RULES.length).toBe(221);
    expect(disagreements).toEqual([]);
  });

  it("the secrets detector finds something in every text that holds a secret", async () => {
    const missed: string[] = [];
    for (const c of CASES.filter((c) => c.secret)) if ((await secrets.detect(c.text, {})).length === 0) missed.push(`${c.rule}: ${c.text.slice(0, 120)}`);
    expect(missed).toEqual([]);
  });

  it("a finding's range is the secret, so a redaction removes it whole", () => {
    for (const c of CASES.filter((c) => c.secret).slice(0, 500)) {
      for (const f of scanGitleaks(c.text)) expect(c.text.slice(...f.range)).toBe(f.secret);
    }
  });
});

describe("the secrets detector on developer text", () => {
  it("finds in the READMEs of the installed packages only their documented examples", async () => {
    const root = path.join(process.cwd(), "node_modules");
    const packages = readdirSync(root).flatMap((d) => (d.startsWith("@") ? readdirSync(path.join(root, d)).map((s) => path.join(d, s)) : [d]));
    let read = 0;
    const found = new Set<string>();
    for (const name of packages) {
      const file = path.join(root, name, "README.md");
      if (!existsSync(file)) continue;
      read++;
      for (const f of await secrets.detect(readFileSync(file, "utf8"), {})) found.add(`${name}: ${f.rule} (${f.confidence})`);
    }
    expect(read).toBeGreaterThan(300);
    expect([...found].sort()).toEqual([
      // postgres://someuser:somepassword@somehost:381/somedatabase, as its usage examples write it
      "pg-connection-string: database-connection-string (high)",
      // var sessionToken = '127e6fbfe24a750e72930c', its example of a timing-safe comparison
      "tsscmp: generic-api-key (medium)",
    ]);
  });
});
