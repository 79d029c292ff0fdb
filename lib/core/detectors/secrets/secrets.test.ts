/**
 * `secrets` on a corpus nobody here wrote: secretlint's own test fixtures for every rule of its
 * recommended preset (test/fixtures/detectors/secretlint, ORIGIN.md says from where). What the
 * preset with its defaults finds there is the figure docs/detectors.md reports; the misses and the
 * false positive are listed here by name, so any change to them is seen.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GITLEAKS_RULES, GITLEAKS_SOURCE } from "./gitleaks/gitleaks-scan";
import { maskSecret, secrets, SECRETLINT_RULES } from "./secrets";

const ROOT = path.join(process.cwd(), "test/fixtures/detectors/secretlint");

interface Case {
  rule: string;
  name: string;
  input: string;
  expected: { rules: string[]; withOptions: boolean };
}

const cases: Case[] = readdirSync(ROOT)
  .filter((rule) => !rule.endsWith(".md"))
  .flatMap((rule) =>
    readdirSync(path.join(ROOT, rule)).map((name) => ({
      rule,
      name,
      input: readFileSync(path.join(ROOT, rule, name, "input.txt"), "utf8"),
      expected: JSON.parse(readFileSync(path.join(ROOT, rule, name, "expected.json"), "utf8")) as Case["expected"],
    })),
  );

describe("secrets on secretlint's fixtures", () => {
  it("covers every rule of the preset", () => {
    expect(new Set(cases.map((c) => c.rule))).toEqual(new Set(SECRETLINT_RULES.map((r) => r.rule)));
  });

  it("finds what the fixtures hold (with the preset's defaults), misses and false positives named", async () => {
    const misses: string[] = [];
    const falsePositives: string[] = [];
    let held = 0;
    for (const c of cases.filter((c) => !c.expected.withOptions)) {
      const found = (await secrets.detect(c.input, {})).map((f) => f.rule);
      if (c.expected.rules.length > 0) {
        held++;
        if (found.length === 0) misses.push(`${c.rule}/${c.name}`);
      } else if (found.length > 0) falsePositives.push(`${c.rule}/${c.name}: ${found.join(", ")}`);
    }
    expect(held).toBe(47);
    // GCP's rule reads service-account JSON and PKCS#12 files by their file type, which a tool's
    // output does not have; gitleaks' private-key rule wants a whole PEM block, and this fixture's
    // ends with four dashes. The `ghs_` fixture is no format GitHub issues (ghs_ and 36 characters).
    expect(misses).toEqual(["gcp/ng.privatekey-json", "gcp/ng.privatekey-p12", "gcp/ng.privatekey-p12-sha256-mac", "gcp/ng.privatekey-p12-sha384-mac", "gcp/ng.privatekey-p12-sha512-mac", "github/ng.app_installation_token"]);
    expect(falsePositives).toEqual([
      // "Encrypted" values that gitleaks' generic rule (medium confidence) reads as keys by their name and entropy.
      "aws/ok.AWS_Secret_Access_Key: generic-api-key, generic-api-key",
      // Placeholder credentials secretlint's rule counts as none; its own check of them reports some.
      "database-connection-string/ok.valid: database-connection-string, database-connection-string, database-connection-string",
    ]);
  });

  it("masks what it found in its reason and says where it is", async () => {
    const token = "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";
    const text = `export GITHUB_TOKEN=${token}\n`;
    const [finding] = await secrets.detect(text, {});
    expect(finding).toMatchObject({ detector: "secrets", rule: "github", confidence: "high" });
    expect(finding.reason).not.toContain(token);
    expect(text.slice(...finding.range!)).toBe(token);
  });

  it("covers an AWS secret access key itself, where secretlint's aws rule reports the start of its line", async () => {
    const key = "Xn7mXk9aLq2Wv8Rt5Yp3Zc6Bd1Fg4Hj0Kl7Mn2Qs";
    const text = `AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2\nAWS_SECRET_ACCESS_KEY = "${key}"\n`;
    const [finding] = await secrets.detect(text, {});
    expect(finding).toMatchObject({ rule: "aws", reason: `found AWS Secret Access Key: ${"*".repeat(40)}` });
    expect(text.slice(...finding.range!)).toBe(key);
  });

  it("is not switched off by a comment in what it reads", async () => {
    const text = "// secretlint-disable\nexport GITHUB_TOKEN=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\n";
    expect((await secrets.detect(text, {})).map((f) => f.rule)).toEqual(["github"]);
  });
});

describe("a long-running process", () => {
  it("keeps nothing of each call: no performance marks, nothing in secretlint's profiler", async () => {
    // secretlint's profiler kept every mark and measured each against all it kept: 6,000 calls
    // held 60 MB more and then blocked the event loop for six minutes.
    const { secretLintProfiler } = await import("@secretlint/profiler");
    const marksBefore = performance.getEntriesByType("mark").length;
    for (let i = 0; i < 200; i++) await secrets.detect(`export GITHUB_TOKEN=ghp_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINU${i % 10}`, {});
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(performance.getEntriesByType("mark").length).toBe(marksBefore);
    expect((secretLintProfiler as unknown as { entries: unknown[] }).entries).toEqual([]);
  });
});

describe("the masks of gitleaks' findings", () => {
  it("show a token's public prefix and its length, never more", async () => {
    const key = "sk_live_51HqLyjWDarjtT1zdp7dcXGlYzQbJ4bBHcPjZ1r2sR0jG2aTe3jq1kq9x8ghD0T4t";
    const text = `STRIPE_KEY=${key}\n`;
    const findings = await secrets.detect(text, {});
    expect(findings.map((f) => [f.rule, f.confidence, f.reason, text.slice(...f.range!)])).toEqual([
      ["stripe-access-token", "high", `Found a Stripe Access Token: sk_l… (${key.length} characters)`, key],
    ]);
    expect(maskSecret("short-secret")).toBe("************");
  });
});

describe("its documentation", () => {
  it("docs/detectors.md names every rule, under this version", () => {
    const doc = readFileSync(path.join(process.cwd(), "docs/detectors.md"), "utf8");
    expect(doc).toContain(`## secrets (version ${secrets.version})`);
    const listed = doc.slice(doc.indexOf("Its rules (each a finding's `rule`):"), doc.indexOf("Every finding is high confidence"));
    for (const { rule } of SECRETLINT_RULES) expect(listed).toContain(rule);
    expect(doc).toContain(`gitleaks' ${GITLEAKS_RULES.length} rules`);
    expect(doc).toContain(GITLEAKS_SOURCE.split(" ")[1].slice(0, 12));
  });
});
