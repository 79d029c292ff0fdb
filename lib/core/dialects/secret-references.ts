/**
 * Dialects that read environment variables in config strings (`${CI_TOKEN}`) ↔ Hookplane, which
 * substitutes named secrets (`${secret:CI_TOKEN}`) so that a hook only sees what it names.
 */

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const SECRET_REFERENCE = /\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `Bearer ${CI_TOKEN}` → `Bearer ${secret:CI_TOKEN}`, and the names that were converted. */
export function envToSecretReferences(text: string): { text: string; names: string[] } {
  const names: string[] = [];
  const converted = text.replace(ENV_REFERENCE, (_, name: string) => {
    names.push(name);
    return `\${secret:${name}}`;
  });
  return { text: converted, names };
}

/** `Bearer ${secret:CI_TOKEN}` → `Bearer ${CI_TOKEN}`. */
export function secretToEnvReferences(text: string): string {
  return text.replace(SECRET_REFERENCE, (_, name: string) => `\${${name}}`);
}
