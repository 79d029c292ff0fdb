/**
 * `pii`: personal data in what a call carries (its input, its output, a prompt). Each rule is a
 * candidate pattern and a check that tells the real thing from a look-alike: the scheme's check
 * digits (Luhn for cards, mod 97 for IBANs and France's NIR, Spain's DNI letter, Brazil's CPF, the
 * Dutch 11-proof), libphonenumber's numbering plans for phone numbers, reserved example domains for
 * emails. Checked ones are high confidence; a format alone (an email, a phone number, a US SSN, a
 * UK National Insurance number) is medium. A reason shows only the end of what it found.
 */
import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import { isValidPhoneNumber } from "libphonenumber-js";
import { patternDetector, type PatternRule } from "../pattern-rules";
import { bsnValid, codiceFiscaleValid, cpfValid, luhnValid, nirValid, spanishIdValid, ssnPlausible } from "./checksums";

export const PII = "pii";

/** A pattern rule whose check says what a candidate is (its reason is "found <what>"). */
type Rule = Omit<PatternRule, "judge"> & { check(value: string): string | undefined };

/** RFC 2606 / 6761 names: examples in docs and tests are nobody's address. */
const RESERVED_DOMAIN = /(^|\.)(example\.(com|org|net)|example|test|invalid|localhost)$/i;

/** Each brand's prefixes (its issuer identification numbers) and lengths. */
const CARD_BRANDS: [RegExp, string][] = [
  [/^4(\d{12}|\d{15}|\d{18})$/, "Visa"],
  [/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))\d{14}$/, "Mastercard"],
  [/^3[47]\d{13}$/, "American Express"],
  [/^(6011|65\d\d|64[4-9]\d)\d{12,15}$/, "Discover"],
  [/^35(2[89]|[3-8]\d)\d{12,15}$/, "JCB"],
  [/^3(0[0-5]\d|[68]\d\d)\d{10,15}$/, "Diners Club"],
];

const RULES: readonly Rule[] = [
  {
    rule: "card",
    finds: "payment card numbers of the major brands (13 to 19 digits, or in groups of four, or Amex's 4-6-5) that pass the Luhn check",
    pattern: /\b(?:\d{13,19}|\d{4}(?:([ -])\d{4}){2,3}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{5})\b/g,
    confidence: "high",
    check(value) {
      const digits = value.replace(/[ -]/g, "");
      const brand = CARD_BRANDS.find(([prefix]) => prefix.test(digits))?.[1];
      return brand && !/^(\d)\1+$/.test(digits) && luhnValid(digits) ? `${/^[AEIOU]/.test(brand) ? "an" : "a"} ${brand} card number ending ${digits.slice(-4)}` : undefined;
    },
  },
  {
    rule: "iban",
    finds: "IBANs (ISO 13616) whose country length and mod-97 check digits hold (ibantools)",
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g,
    confidence: "high",
    check(value) {
      const iban = electronicFormatIBAN(value);
      return iban && isValidIBAN(iban) ? `an IBAN (${iban.slice(0, 2)}) ending ${iban.slice(-4)}` : undefined;
    },
  },
  {
    rule: "email",
    finds: "email addresses, not those at reserved example domains (example.com, .test, .invalid, localhost)",
    pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g,
    confidence: "medium",
    check(value) {
      const at = value.lastIndexOf("@");
      return RESERVED_DOMAIN.test(value.slice(at + 1)) ? undefined : `an email address at ${value.slice(at + 1)}`;
    },
  },
  {
    rule: "phone",
    finds: "phone numbers in international form (+…) valid in their country's numbering plan (libphonenumber)",
    pattern: /\+\d[\d ().-]{6,18}\d/g,
    confidence: "medium",
    check: (value) => (isValidPhoneNumber(value) ? `a phone number ending ${value.replace(/\D/g, "").slice(-3)}` : undefined),
  },
  {
    rule: "us-ssn",
    finds: "United States Social Security numbers written AAA-GG-SSSS, areas and groups that are issued",
    pattern: /\b(\d{3})-(\d{2})-(\d{4})\b/g,
    confidence: "medium",
    check: (value) => {
      const [area, group, serial] = value.split("-");
      return ssnPlausible(area, group, serial) ? `a US Social Security number ending ${serial}` : undefined;
    },
  },
  {
    rule: "uk-nino",
    finds: "United Kingdom National Insurance numbers (two letters as issued, six digits, A to D)",
    pattern: /\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g,
    confidence: "medium",
    check: (value) => `a UK National Insurance number ending ${value.replace(/\s/g, "").slice(-3)}`,
  },
  {
    rule: "es-dni",
    finds: "Spain's DNI and NIE numbers whose check letter holds",
    pattern: /\b[XYZ]?\d{7,8}[A-Z]\b/g,
    confidence: "high",
    check: (value) => (spanishIdValid(value) ? `a Spanish DNI/NIE ending ${value.slice(-3)}` : undefined),
  },
  {
    rule: "br-cpf",
    finds: "Brazil's CPF numbers written 000.000.000-00 whose check digits hold",
    pattern: /\b\d{3}\.\d{3}\.\d{3}-\d{2}\b/g,
    confidence: "high",
    check: (value) => (cpfValid(value.replace(/\D/g, "")) ? `a Brazilian CPF ending ${value.slice(-2)}` : undefined),
  },
  {
    rule: "fr-nir",
    finds: "France's social security numbers (NIR, 15 characters) whose key holds",
    pattern: /\b[12] ?\d{2} ?\d{2} ?(?:\d{2}|2A|2B) ?\d{3} ?\d{3} ?\d{2}\b/g,
    confidence: "high",
    check: (value) => (nirValid(value.replace(/ /g, "")) ? `a French NIR ending ${value.slice(-2)}` : undefined),
  },
  {
    rule: "it-codice-fiscale",
    finds: "Italy's codici fiscali whose check letter holds",
    pattern: /\b[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-EHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]\b/g,
    confidence: "high",
    check: (value) => (codiceFiscaleValid(value) ? `an Italian codice fiscale ending ${value.slice(-3)}` : undefined),
  },
  {
    rule: "nl-bsn",
    finds: "the Netherlands' BSN (9 digits passing the 11-proof) where the text calls it one (bsn, burgerservicenummer)",
    pattern: /\b(?:bsn|burgerservicenummer)\b\D{0,20}?(\d{9})\b/gi,
    group: 1,
    confidence: "high",
    check: (value) => (bsnValid(value) ? `a Dutch BSN ending ${value.slice(-3)}` : undefined),
  },
];

/** The most candidates of one rule checked in one text: a bound on the work a hostile text can ask for. */
const MAX_CANDIDATES = 2_000;

export const personalData = patternDetector(
  PII,
  RULES.map((rule) => ({ ...rule, judge: (value: string) => ((what) => (what === undefined ? undefined : `found ${what}`))(rule.check(value)) })),
  MAX_CANDIDATES,
);
