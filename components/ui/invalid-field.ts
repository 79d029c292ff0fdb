/**
 * Finding what a refused form should show first: the first control (in page order) that is marked
 * invalid or is named by a problem's path, scrolled to the middle of the screen and focused. Works
 * on the page rather than on each form's field list, so a new form gets it without saying anything.
 */

/** The field a path names: `targets[0].to` and `approvers.users` belong to `targets` and `approvers`. */
export function pathRoot(path: string): string {
  return path.split(/[.[]/)[0];
}

/** The problem at `path` or under it (`codeHooks[1]`, said with its sub-path), or undefined. */
export function errorAt(errors: Record<string, string> | undefined, path: string): string | undefined {
  if (!errors) return undefined;
  if (errors[path]) return errors[path];
  const nested = Object.keys(errors).filter((p) => p.startsWith(`${path}[`) || p.startsWith(`${path}.`));
  if (nested.length === 0) return undefined;
  return nested.map((p) => `${p.slice(path.length).replace(/^\./, "")}: ${errors[p]}`).join("; ");
}

type Control = HTMLElement & { name?: string; type?: string; disabled?: boolean };

/** The first control of `form` to correct, or null when no control is invalid or named. */
export function firstInvalidControl(form: HTMLFormElement, paths: readonly string[]): HTMLElement | null {
  const names = new Set([...paths, ...paths.map(pathRoot)]);
  for (const element of Array.from(form.elements) as Control[]) {
    if (element.type === "hidden" || element.tagName === "FIELDSET" || element.tagName === "BUTTON") continue;
    if (element.getAttribute("aria-invalid") === "true" || (element.name && names.has(element.name))) return element;
  }
  return null;
}

/**
 * Scrolls to and focuses the first invalid control, or the form's message when no control is
 * (a problem of the whole form). Returns what it focused.
 */
export function focusFirstInvalid(form: HTMLFormElement | null, paths: readonly string[]): HTMLElement | null {
  if (!form) return null;
  const target = firstInvalidControl(form, paths) ?? form.querySelector<HTMLElement>('[data-testid="form-message"]');
  if (!target) return null;
  target.scrollIntoView({ block: "center", behavior: "instant" as ScrollBehavior });
  target.focus({ preventScroll: true });
  return target;
}
