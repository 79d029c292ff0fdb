/**
 * `pii` on another project's labelled cases (Microsoft Presidio's recognizer tests:
 * test/fixtures/detectors/presidio-pii, ORIGIN.md): per kind, a text with entities counts as found
 * when the kind's rules find as many as Presidio's cases say, at any confidence (Presidio's own
 * scores for some are as low as 0.05: pii says `low` there); a look-alike counts as left alone when
 * the kind's rules find nothing in it, at any confidence. (Another kind may: one IBAN look-alike is
 * a pizzeria's address with its phone number, which phone-nanp finds.)
 * Then the READMEs of every installed package: at medium or more, only email addresses.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { CONFIDENCE_RANK, type Finding } from "../types";
import { personalData } from "./personal-data";

interface Case {
  entity: string;
  text: string;
  expected: number;
}
const CASES: Case[] = JSON.parse(readFileSync(path.join(process.cwd(), "test/fixtures/detectors/presidio-pii/cases.json"), "utf8"));

/** Presidio's kinds, and the pii rules that find each. */
const RULES_OF: Record<string, string[]> = {
  CREDIT_CARD: ["card"],
  EMAIL_ADDRESS: ["email"],
  PHONE_NUMBER: ["phone", "phone-nanp", "phone-national"],
  IBAN_CODE: ["iban"],
  US_SSN: ["us-ssn"],
  UK_NINO: ["uk-nino"],
  ES_NIF: ["es-dni"],
  ES_NIE: ["es-dni"],
  IT_FISCAL_CODE: ["it-codice-fiscale"],
};
const acted = (f: Finding) => CONFIDENCE_RANK[f.confidence] >= CONFIDENCE_RANK.medium;

it("finds every entity of Presidio's cases and leaves every look-alike alone, kind by kind", () => {
  const tally: Record<string, { found: string; leftAlone: string }> = {};
  const misses: string[] = [];
  const falsePositives: string[] = [];
  const counts: Record<string, { found: number; of: number; alone: number; ofAlone: number }> = {};
  for (const c of CASES) {
    const findings = personalData.detect(c.text);
    const n = (counts[c.entity] ??= { found: 0, of: 0, alone: 0, ofAlone: 0 });
    if (c.expected > 0) {
      n.of++;
      const mine = findings.filter((f) => RULES_OF[c.entity].includes(f.rule));
      if (mine.length === c.expected) n.found++;
      else misses.push(`${c.entity}: ${c.text} (${mine.length} of ${c.expected})`);
    } else {
      n.ofAlone++;
      const flagged = findings.filter((f) => RULES_OF[c.entity].includes(f.rule));
      if (flagged.length === 0) n.alone++;
      else falsePositives.push(`${c.entity}: ${c.text}: ${flagged.map((f) => f.rule).join(", ")}`);
    }
  }
  for (const [entity, n] of Object.entries(counts)) tally[entity] = { found: `${n.found}/${n.of}`, leftAlone: `${n.alone}/${n.ofAlone}` };
  expect(CASES.length).toBe(429);
  expect(misses).toEqual([]);
  expect(falsePositives).toEqual([]);
  expect(tally).toEqual({
    CREDIT_CARD: { found: "14/14", leftAlone: "5/5" },
    EMAIL_ADDRESS: { found: "6/6", leftAlone: "2/2" },
    ES_NIE: { found: "10/10", leftAlone: "5/5" },
    ES_NIF: { found: "8/8", leftAlone: "2/2" },
    IBAN_CODE: { found: "157/157", leftAlone: "173/173" },
    IT_FISCAL_CODE: { found: "3/3", leftAlone: "2/2" },
    PHONE_NUMBER: { found: "17/17", leftAlone: "0/0" },
    UK_NINO: { found: "5/5", leftAlone: "7/7" },
    US_SSN: { found: "6/6", leftAlone: "7/7" },
  });
});

it("says how sure it is as Presidio scores them: a checked number high, a layout medium, a shape look-alikes share low", () => {
  const of = (text: string) => personalData.detect(text).map((f) => [f.rule, f.confidence]);
  expect(of("4012888888881881")).toEqual([["card", "high"]]);
  expect(of("078-05-1123")).toEqual([["us-ssn", "medium"]]);
  expect(of("078051121")).toEqual([["us-ssn", "low"]]);
  expect(of("AAAAAA00B11C333Y")).toEqual([["it-codice-fiscale", "high"]]);
  expect(of("AAAAAA00B11C333N")).toEqual([["it-codice-fiscale", "low"]]);
  expect(of("US: 415-555-0132")).toEqual([["phone-nanp", "medium"]]);
  expect(of("My Japanese number is 090-1234-5678")).toEqual([["phone-national", "low"]]);
  expect(of("My CN number is 13812345678")).toEqual([["phone-national", "low"]]);
});

it("finds nothing but email addresses, at medium or more, in the READMEs of the installed packages", () => {
  const root = path.join(process.cwd(), "node_modules");
  const packages = readdirSync(root).flatMap((d) => (d.startsWith("@") ? readdirSync(path.join(root, d)).map((s) => path.join(d, s)) : [d]));
  // The two libraries pii is built on document themselves with example IBANs and phone numbers.
  const ownExamples = new Set(["ibantools", "libphonenumber-js"]);
  let read = 0;
  const flagged: string[] = [];
  for (const name of packages) {
    const file = path.join(root, name, "README.md");
    if (ownExamples.has(name) || !existsSync(file)) continue;
    read++;
    for (const f of personalData.detect(readFileSync(file, "utf8")).filter(acted)) if (f.rule !== "email") flagged.push(`${name}: ${f.rule}: ${f.reason}`);
  }
  expect(read).toBeGreaterThan(300);
  expect(flagged).toEqual([]);
});
