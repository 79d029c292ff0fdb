/**
 * The phone number rules of `pii`. A number written with its country code (+…) says where it is
 * valid; one written as its country writes it does not, and many a developer's text holds digit
 * groups that some numbering plan accepts (a date, 2024-11-29, is a valid number in Germany). So:
 * the North American layout, (415) 555-0132, valid in the US or Canada, is medium confidence;
 * another national form (a trunk 0, 020 7123 4567), or bare digits the text calls a number, valid
 * in one of the common plans, is low.
 */
import { isValidPhoneNumber, type CountryCode } from "libphonenumber-js";
import type { PatternRule } from "../pattern-rules";

/** The plans a national number is tried against (Presidio's defaults, with Japan, China, France, Italy, Australia and the Netherlands). */
const NATIONAL_PLANS: CountryCode[] = ["US", "GB", "DE", "FR", "IT", "IL", "IN", "BR", "JP", "CN", "AU", "NL", "CA"];
/** Day-month-year, year-month-day: dates, whichever plan would take their digits. */
const DATE_SHAPE = /^(\d{1,2}[ -]\d{1,2}[ -]\d{4}|\d{4}[ -]\d{1,2}[ -]\d{1,2})$/;
const ending = (value: string) => value.replace(/\D/g, "").slice(-3);

function nationalPlan(value: string): CountryCode | undefined {
  if (DATE_SHAPE.test(value)) return undefined;
  return NATIONAL_PLANS.find((plan) => isValidPhoneNumber(value, plan));
}

// What is around a candidate is looked at here rather than in the patterns: a pattern that starts
// with a lookbehind is tried at every position of the text (100 kB took 10 ms instead of 0.5).
/** Inside a longer token (a path, a version, a URL, an id) or a longer run of digit groups. */
const JOINED_BEFORE = /[\w+./:-]$|\d[ -]$/;
const JOINED_AFTER = /^(?:[\w./:-]|[ -]\d)/;
/** The national part of an international number (+44 (20) 7123 4567), which `phone` finds whole. */
const AFTER_COUNTRY_CODE = /\+\d{1,3}[ ().-]{0,2}$/;
const CALLED_A_NUMBER = /\b(?:phone|tel|telephone|mobile|cell|fax|number)\b[^\d\n]{0,20}$/i;

function standsAlone(value: string, { text, start }: { text: string; start: number }): boolean {
  const before = text.slice(Math.max(0, start - 8), start);
  const after = text.slice(start + value.length, start + value.length + 2);
  return !JOINED_BEFORE.test(before) && !AFTER_COUNTRY_CODE.test(before) && !JOINED_AFTER.test(after);
}

export const PHONE_RULES: readonly PatternRule[] = [
  {
    rule: "phone",
    finds: "phone numbers in international form (+…) valid in their country's numbering plan (libphonenumber)",
    pattern: /\+\d[\d ().-]{6,18}\d/g,
    confidence: "medium",
    judge: (value) => (isValidPhoneNumber(value) ? `found a phone number ending ${ending(value)}` : undefined),
  },
  {
    rule: "phone-nanp",
    finds: "phone numbers in the North American layout ((415) 555-0132, 415-555-0132) valid in the US or Canada",
    pattern: /\(?\b[2-9]\d{2}\)?[ .-]?[2-9]\d{2}[ .-]\d{4}\b/g,
    confidence: "medium",
    judge: (value, at) =>
      standsAlone(value, at) && (isValidPhoneNumber(value, "US") || isValidPhoneNumber(value, "CA")) ? `found a North American phone number ending ${ending(value)}` : undefined,
  },
  {
    rule: "phone-national",
    finds: "phone numbers in a national form with a trunk 0 (020 7123 4567, 09-7625400), or 10 or 11 digits the text calls a phone or number, valid in a common numbering plan (low confidence: dates and ids look alike)",
    pattern: /(?:\(0\d{1,4}\)|\b0\d{1,4})[ -]\d{2,8}(?:[ -]\d{2,4}){0,2}\b|\b\d{10,11}\b/g,
    confidence: "low",
    judge(value, at) {
      if (!standsAlone(value, at)) return undefined;
      // Bare digits are a phone number only where the text says so.
      if (/^\d+$/.test(value) && !CALLED_A_NUMBER.test(at.text.slice(Math.max(0, at.start - 40), at.start))) return undefined;
      const plan = nationalPlan(value);
      return plan ? `found a phone number (valid in ${plan}) ending ${ending(value)}` : undefined;
    },
  },
];
