/**
 * The check digits that tell a real card, account or national id number from any run of digits:
 * each is the published algorithm of its scheme, so a candidate that fails it is not reported.
 */

/** Luhn (ISO/IEC 7812): payment cards. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Spain's DNI (8 digits) and NIE (X/Y/Z + 7 digits): the letter is the number mod 23 in this table. */
export function spanishIdValid(id: string): boolean {
  const m = /^([XYZ]|\d)(\d{7})([A-Z])$/.exec(id);
  if (!m) return false;
  const lead = "XYZ".indexOf(m[1]);
  const number = Number(`${lead >= 0 ? lead : m[1]}${m[2]}`);
  return "TRWAGMYFPDXBNJZSQVHLCKE"[number % 23] === m[3];
}

/** Brazil's CPF (11 digits): two check digits, weights 10..2 then 11..2, mod 11. */
export function cpfValid(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return false;
  const check = (length: number) => {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += (digits.charCodeAt(i) - 48) * (length + 1 - i);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  return check(9) === digits.charCodeAt(9) - 48 && check(10) === digits.charCodeAt(10) - 48;
}

/** The Netherlands' BSN (9 digits): the "11-proof", weights 9..2 and -1. */
export function bsnValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits) || /^0+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += (digits.charCodeAt(i) - 48) * (9 - i);
  sum -= digits.charCodeAt(8) - 48;
  return sum % 11 === 0;
}

/** France's NIR (13 digits and a 2-digit key): key = 97 - (number mod 97); Corsica's 2A/2B count as 19/18. */
export function nirValid(nir: string): boolean {
  const m = /^([12]\d{4})(\d{2}|2A|2B)(\d{6})(\d{2})$/.exec(nir);
  if (!m) return false;
  const department = m[2] === "2A" ? "19" : m[2] === "2B" ? "18" : m[2];
  const number = BigInt(`${m[1]}${department}${m[3]}`);
  return 97n - (number % 97n) === BigInt(m[4]);
}

/** Italy's codice fiscale (16 characters): the last is a check letter over odd and even positions. */
export function codiceFiscaleValid(code: string): boolean {
  if (!/^[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-EHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]$/.test(code)) return false;
  const ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const c = code[i];
    const value = c >= "0" && c <= "9" ? c.charCodeAt(0) - 48 : c.charCodeAt(0) - 65;
    sum += i % 2 === 0 ? ODD[value] : value;
  }
  return String.fromCharCode(65 + (sum % 26)) === code[15];
}

/** The United States' SSN: area not 000, 666 or 9xx, group not 00, serial not 0000. */
export function ssnPlausible(area: string, group: string, serial: string): boolean {
  return area !== "000" && area !== "666" && area[0] !== "9" && group !== "00" && serial !== "0000";
}
