import { describe, expect, it } from "vitest";
import { errorAt, firstInvalidControl, pathRoot } from "./invalid-field";

describe("a problem at a field or under it", () => {
  const errors = { name: "too short; lowercase only", "codeHooks[1]": "unknown hook", "targets[0].to": "not an email", "targets[0].channel": "required" };

  it("is the field's own problem, every message of it", () => {
    expect(errorAt(errors, "name")).toBe("too short; lowercase only");
  });

  it("gathers every nested problem with its sub-path", () => {
    expect(errorAt(errors, "codeHooks")).toBe("[1]: unknown hook");
    expect(errorAt(errors, "targets")).toBe("[0].to: not an email; [0].channel: required");
    expect(errorAt(errors, "targets[0].to")).toBe("not an email");
  });

  it("is nothing for a clean field, a field that only shares a prefix, or no errors", () => {
    expect(errorAt(errors, "description")).toBeUndefined();
    expect(errorAt({ nameSuffix: "x" }, "name")).toBeUndefined();
    expect(errorAt(undefined, "name")).toBeUndefined();
  });

  it("belongs to the field its path starts with", () => {
    expect(pathRoot("targets[0].to")).toBe("targets");
    expect(pathRoot("approvers.users")).toBe("approvers");
    expect(pathRoot("name")).toBe("name");
  });
});

/** Enough of a form for the search: its controls in page order. */
function formOf(controls: { name?: string; type?: string; tagName?: string; invalid?: boolean }[]): HTMLFormElement {
  const elements = controls.map((c) => ({
    name: c.name ?? "",
    type: c.type ?? "text",
    tagName: c.tagName ?? "INPUT",
    getAttribute: (attribute: string) => (attribute === "aria-invalid" && c.invalid ? "true" : null),
  }));
  return { elements } as unknown as HTMLFormElement;
}

describe("the first control to correct", () => {
  it("is the first in page order that is marked invalid or named by a problem", () => {
    const form = formOf([{ name: "id", type: "hidden" }, { name: "name" }, { name: "description" }, { name: "maxTurns" }]);
    expect((firstInvalidControl(form, ["maxTurns", "name"]) as unknown as { name: string }).name).toBe("name");
  });

  it("finds a nested problem's field and a control marked by its Field (no name: the hook editor)", () => {
    const nested = formOf([{ name: "title" }, { name: "targets" }]);
    expect((firstInvalidControl(nested, ["targets[0].to"]) as unknown as { name: string }).name).toBe("targets");
    const unnamed = formOf([{ name: "" }, { name: "", invalid: true }, { name: "" }]);
    expect(firstInvalidControl(unnamed, [])).toBe(unnamed.elements[1]);
  });

  it("skips hidden inputs, fieldsets and buttons, and finds nothing when nothing matches", () => {
    const form = formOf([{ name: "id", type: "hidden" }, { name: "tools", tagName: "FIELDSET" }, { name: "decision", tagName: "BUTTON" }]);
    expect(firstInvalidControl(form, ["id", "tools", "decision"])).toBeNull();
    expect(firstInvalidControl(formOf([{ name: "name" }]), ["other"])).toBeNull();
  });
});
