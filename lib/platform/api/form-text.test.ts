import { describe, expect, it } from "vitest";
import { formText } from "./form-text";

describe("formText", () => {
  it("trims text fields; a blank, missing or file field is undefined", () => {
    const form = new FormData();
    form.set("name", "  ops-spend ");
    form.set("blank", "   ");
    form.set("file", new Blob(["x"]), "x.txt");
    const text = formText(form);
    expect(text("name")).toBe("ops-spend");
    expect(text("blank")).toBeUndefined();
    expect(text("missing")).toBeUndefined();
    expect(text("file")).toBeUndefined();
  });
});
