/**
 * `pii`: personal data in what a call carries (its input, its output, a prompt). Each rule is a
 * candidate pattern and a check that tells the real thing from a look-alike: the scheme's check
 * digits (Luhn for cards, mod 97 for IBANs and France's NIR, Spain's DNI letter, Brazil's CPF, the
 * Dutch 11-proof), libphonenumber's numbering plans for phone numbers, reserved example domains for
 * emails. Checked ones are high confidence; a format alone (an email, a phone number, a US SSN, a
 * UK National Insurance number) is medium; a shape that look-alikes share often (nine bare digits, a
 * national phone layout, a codice fiscale whose check letter fails) is low, which no hook acts on
 * unless its minConfidence says so. A reason shows only the end of what it found.
 */
import { countrySpecs, electronicFormatIBAN, isValidIBAN } from "ibantools";
import { patternDetector, type PatternRule } from "../pattern-rules";
import type { Confidence } from "../types";
import { PHONE_RULES } from "./phone-numbers";
import { bsnValid, codiceFiscaleValid, cpfValid, luhnValid, nirValid, spanishIdValid, ssnPlausible } from "./checksums";

export const PII = "pii";

/** RFC 2606 / 6761 names: examples in docs and tests are nobody's address. */
const RESERVED_DOMAIN = /(^|\.)(example\.(com|org|net)|example|test|invalid|localhost)$/i;

/** Each brand's prefixes (its issuer identification numbers) and lengths; UATP's lone 1 is only medium. */
const CARD_BRANDS: [RegExp, string, Confidence][] = [
  [/^4(\d{12}|\d{15}|\d{18})$/, "Visa", "high"],
  [/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))\d{14}$/, "Mastercard", "high"],
  [/^3[47]\d{13}$/, "American Express", "high"],
  [/^(6011|65\d\d|64[4-9]\d)\d{12,15}$/, "Discover", "high"],
  [/^35(2[89]|[3-8]\d)\d{12,15}$/, "JCB", "high"],
  [/^3(0[0-5]\d|[68]\d\d)\d{10,15}$/, "Diners Club", "high"],
  [/^5019\d{12}$/, "Dankort", "high"],
  [/^(5018|5020|5038|5893|6304|6759|676[1-3])\d{8,15}$/, "Maestro", "high"],
  [/^1\d{14}$/, "UATP", "medium"],
];

/** Numbers published as examples or given out in advertising: nobody's. */
const FAMOUS_SSNS = new Set(["078051120", "219099999", "457555462"]);

/** The first `chars` letters and digits of a candidate written with separators, as it was written. */
function prefixOfLength(value: string, chars: number): string {
  let seen = 0;
  for (let i = 0; i < value.length; i++) if (/[A-Z0-9]/i.test(value[i]) && ++seen === chars) return value.slice(0, i + 1);
  return value;
}

const RULES: readonly PatternRule[] = [
  {
    rule: "card",
    finds: "payment card numbers of the major brands (13 to 19 digits, or in groups of four, or Amex's 4-6-5) that pass the Luhn check",
    pattern: /\b(?:\d{13,19}|\d{4}(?:([ -])\d{4}){2,3}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{5})\b/g,
    confidence: "high",
    judge(value) {
      const digits = value.replace(/[ -]/g, "");
      const brand = CARD_BRANDS.find(([prefix]) => prefix.test(digits));
      if (!brand || /^(\d)\1+$/.test(digits) || !luhnValid(digits)) return undefined;
      return { reason: `found ${/^[AEIOU]/.test(brand[1]) ? "an" : "a"} ${brand[1]} card number ending ${digits.slice(-4)}`, confidence: brand[2] };
    },
  },
  {
    rule: "iban",
    finds: "IBANs (ISO 13616), grouped by spaces or dashes or not, whose country length and mod-97 check digits hold (ibantools)",
    pattern: /\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]){11,30}\b/g,
    confidence: "high",
    judge(value) {
      // What follows an IBAN may read as more of it ("… 8741 ALL CAPS"): it ends at its country's length.
      const chars = countrySpecs[value.slice(0, 2)]?.chars;
      const candidate = chars ? prefixOfLength(value, chars) : value;
      const iban = electronicFormatIBAN(candidate.replace(/-/g, " "));
      return iban && isValidIBAN(iban) ? { reason: `found an IBAN (${iban.slice(0, 2)}) ending ${iban.slice(-4)}`, confidence: "high", length: candidate.length } : undefined;
    },
  },
  {
    rule: "email",
    finds: "email addresses, not those at reserved example domains (example.com, .test, .invalid, localhost)",
    pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g,
    confidence: "medium",
    judge(value) {
      const at = value.lastIndexOf("@");
      return RESERVED_DOMAIN.test(value.slice(at + 1)) ? undefined : `found an email address at ${value.slice(at + 1)}`;
    },
  },
  ...PHONE_RULES,
  {
    rule: "us-ssn",
    finds: "United States Social Security numbers whose area, group and serial are issued: AAA-GG-SSSS (or with dots or spaces) is medium confidence; nine bare digits, or one dash only, low",
    pattern: /\b\d{3}([-. ]?)\d{2}\1\d{4}\b|\b\d{3}-\d{6}\b|\b\d{5}-\d{4}\b/g,
    confidence: "medium",
    judge(value) {
      const digits = value.replace(/\D/g, "");
      if (FAMOUS_SSNS.has(digits) || !ssnPlausible(digits.slice(0, 3), digits.slice(3, 5), digits.slice(5))) return undefined;
      const laidOut = /^\d{3}([-. ])\d{2}\1\d{4}$/.test(value);
      return { reason: `found ${laidOut ? "a" : "what may be a"} US Social Security number ending ${digits.slice(-4)}`, confidence: laidOut ? "medium" : "low" };
    },
  },
  {
    rule: "uk-nino",
    finds: "United Kingdom National Insurance numbers (two letters as issued, six digits, A to D), in either case",
    pattern: /\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/gi,
    confidence: "medium",
    judge: (value) => `found a UK National Insurance number ending ${value.replace(/\s/g, "").slice(-3).toUpperCase()}`,
  },
  {
    rule: "es-dni",
    finds: "Spain's DNI and NIE numbers (7 or 8 digits, a dash before the letter or not, in either case) whose check letter holds",
    pattern: /\b[XYZ]?\d{7,8}-?[A-Z]\b/gi,
    confidence: "high",
    judge(value) {
      const id = value.toUpperCase().replace("-", "");
      const padded = /^\d{7}[A-Z]$/.test(id) ? `0${id}` : id;
      return spanishIdValid(padded) ? `found a Spanish DNI/NIE ending ${id.slice(-3)}` : undefined;
    },
  },
  {
    rule: "br-cpf",
    finds: "Brazil's CPF numbers written 000.000.000-00 whose check digits hold",
    pattern: /\b\d{3}\.\d{3}\.\d{3}-\d{2}\b/g,
    confidence: "high",
    judge: (value) => (cpfValid(value.replace(/\D/g, "")) ? `found a Brazilian CPF ending ${value.slice(-2)}` : undefined),
  },
  {
    rule: "fr-nir",
    finds: "France's social security numbers (NIR, 15 characters) whose key holds",
    pattern: /\b[12] ?\d{2} ?\d{2} ?(?:\d{2}|2A|2B) ?\d{3} ?\d{3} ?\d{2}\b/g,
    confidence: "high",
    judge: (value) => (nirValid(value.replace(/ /g, "")) ? `found a French NIR ending ${value.slice(-2)}` : undefined),
  },
  {
    rule: "it-codice-fiscale",
    finds: "Italy's codici fiscali: high confidence when the check letter holds, low when only the layout does",
    pattern: /\b[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-EHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]\b/g,
    confidence: "high",
    judge: (value) =>
      codiceFiscaleValid(value)
        ? `found an Italian codice fiscale ending ${value.slice(-3)}`
        : { reason: `found the layout of an Italian codice fiscale ending ${value.slice(-3)} (its check letter does not hold)`, confidence: "low" },
  },
  {
    rule: "nl-bsn",
    finds: "the Netherlands' BSN (9 digits passing the 11-proof) where the text calls it one (bsn, burgerservicenummer)",
    pattern: /\b(?:bsn|burgerservicenummer)\b\D{0,20}?(\d{9})\b/gi,
    group: 1,
    confidence: "high",
    judge: (value) => (bsnValid(value) ? `found a Dutch BSN ending ${value.slice(-3)}` : undefined),
  },
];

/** The most candidates of one rule checked in one text: a bound on the work a hostile text can ask for. */
const MAX_CANDIDATES = 2_000;

/** Version 2: national phone layouts, SSNs with dots, spaces or none, Spanish ids with a dash, more card brands, IBANs with dashes. */
export const personalData = patternDetector(PII, 2, RULES, MAX_CANDIDATES, { oneFindingPerSpan: true });
