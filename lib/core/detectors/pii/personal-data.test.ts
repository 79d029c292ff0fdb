/**
 * `pii`: each rule from the right side (the published example or test numbers of each scheme) and
 * the wrong side (the same shapes with a failing check digit, and what a developer's tool output
 * is full of: hashes, ids, versions, timestamps, addresses at example domains).
 */
import { describe, expect, it } from "vitest";
import { bsnValid, codiceFiscaleValid, cpfValid, luhnValid, nirValid, spanishIdValid } from "./checksums";
import { personalData } from "./personal-data";

const found = (text: string) => personalData.detect(text).map((f) => [f.rule, f.confidence, text.slice(...f.range!)]);

describe("pii finds", () => {
  it.each([
    ["Card 4111 1111 1111 1111 on file", "card", "high", "4111 1111 1111 1111"],
    ["mc=5555555555554444", "card", "high", "5555555555554444"],
    ["amex 3782 822463 10005", "card", "high", "3782 822463 10005"],
    ["IBAN DE89 3704 0044 0532 0130 00.", "iban", "high", "DE89 3704 0044 0532 0130 00"],
    ["iban: GB82WEST12345698765432", "iban", "high", "GB82WEST12345698765432"],
    ["reach jane.doe@acme.io today", "email", "medium", "jane.doe@acme.io"],
    ["call +1 415 555 2671", "phone", "medium", "+1 415 555 2671"],
    ["tel +44 20 7946 0958", "phone", "medium", "+44 20 7946 0958"],
    ["ssn 123-45-6789", "us-ssn", "medium", "123-45-6789"],
    ["NI AB 12 34 56 C", "uk-nino", "medium", "AB 12 34 56 C"],
    ["DNI 12345678Z", "es-dni", "high", "12345678Z"],
    ["NIE X1234567L", "es-dni", "high", "X1234567L"],
    ["CPF 529.982.247-25", "br-cpf", "high", "529.982.247-25"],
    ["NIR 2 55 08 14 168 025 38", "fr-nir", "high", "2 55 08 14 168 025 38"],
    ["CF RSSMRA85T10A562S", "it-codice-fiscale", "high", "RSSMRA85T10A562S"],
    ["BSN: 111222333", "nl-bsn", "high", "111222333"],
  ])("%s", (text, rule, confidence, value) => {
    expect(found(text)).toEqual([[rule, confidence, value]]);
  });

  it("says what it found by its end only", () => {
    expect(personalData.detect("card 4111111111111111").map((f) => f.reason)).toEqual(["found a Visa card number ending 1111"]);
    expect(personalData.detect("amex 378282246310005").map((f) => f.reason)).toEqual(["found an American Express card number ending 0005"]);
  });
});

describe("pii leaves alone", () => {
  it.each([
    "4111111111111112", // Luhn fails
    "0000000000000000",
    "ts=1700000000000 id=1234567890123456789",
    "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "version 1.2.3, node v20.20.2, port 8080, 127.0.0.1:5432",
    "DE89 3704 0044 0532 0130 01", // check digits fail
    "jane@example.com, ci@build.test, root@localhost.localdomain.invalid",
    "+1 000 000 0000",
    "000-12-3456 666-12-3456 912-34-5678",
    "DNI 12345678A",
    "CPF 111.111.111-11 and 529.982.247-26",
  ])("%s", (text) => {
    expect(found(text)).toEqual([]);
  });

  // Shapes that look-alikes share: found at low confidence, which no hook acts on unless its minConfidence says so.
  it.each([
    ["BSN: 111222334", "us-ssn", "111222334"], // the 11-proof fails; nine digits remain nine digits
    ["order 111222333 shipped", "us-ssn", "111222333"], // a BSN only where the text calls it one
    ["RSSMRA85T10A562T", "it-codice-fiscale", "RSSMRA85T10A562T"], // its check letter fails
  ])("%s only at low confidence", (text, rule, value) => {
    expect(found(text)).toEqual([[rule, "low", value]]);
  });
});

describe("the checks", () => {
  it("are the schemes' published algorithms", () => {
    expect([luhnValid("79927398713"), luhnValid("79927398710")]).toEqual([true, false]);
    expect([spanishIdValid("12345678Z"), spanishIdValid("Y1234567X"), spanishIdValid("Z1234567R"), spanishIdValid("12345678Y")]).toEqual([true, true, true, false]);
    expect([cpfValid("52998224725"), cpfValid("52998224724")]).toEqual([true, false]);
    expect([bsnValid("111222333"), bsnValid("123456782"), bsnValid("123456789")]).toEqual([true, true, false]);
    expect([nirValid("255081416802538"), nirValid("255081416802539"), nirValid("2550820000000" + "38")]).toEqual([true, false, false]);
    expect([codiceFiscaleValid("RSSMRA85T10A562S"), codiceFiscaleValid("RSSMRA85T10A562Z")]).toEqual([true, false]);
  });

  it("a hostile text asks for bounded work", () => {
    const text = "4111 1111 1111 1111 ".repeat(50_000);
    const started = performance.now();
    const findings = personalData.detect(text);
    expect(findings.length).toBe(2_000);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("its documentation", () => {
  it("docs/detectors.md lists every rule, under this version", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync(new URL("../../../../docs/detectors.md", import.meta.url), "utf8");
    expect(doc).toContain(`## pii (version ${personalData.version})`);
    for (const { rule } of personalData.rules) expect(doc).toContain(`| \`${rule}\` |`);
  });
});
