/**
 * JSON Merge Patch (RFC 7396): what a `modify` hook's `input` says about a tool input. An object
 * patch merges key by key (a `null` value removes the key), anything else replaces the target.
 * The target is never mutated: the ledger keeps the input a hook was given next to the result.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
