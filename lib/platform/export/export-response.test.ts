import { describe, expect, test } from "vitest";
import { exportResponse } from "./export-response";

const columns = [
  { header: "id", value: (r: { id: number; note: string }) => r.id },
  { header: "note", value: (r: { id: number; note: string }) => r.note },
];

async function* pages(failAfter: number) {
  for (let page = 0; ; page++) {
    if (page === failAfter) throw new Error("relation does not exist at /secret/path");
    yield [{ id: page, note: page === 0 ? "=1+1" : "fine" }];
    if (page === 3) return;
  }
}

describe("export downloads", () => {
  test("a failure on the first page is thrown before the status line, so the route answers an error", async () => {
    await expect(exportResponse({ format: "csv", name: "x", columns, pages: pages(0) })).rejects.toThrow(/relation/);
  });

  test("a failure mid-way ends the CSV with an #error line instead of a cut connection, and leaks nothing", async () => {
    const response = await exportResponse({ format: "csv", name: "x", columns, pages: pages(2) });
    expect(response.status).toBe(200);
    const text = await response.text();
    const lines = text.trimEnd().split("\r\n");
    expect(lines.slice(0, 3)).toEqual(["id,note", "0,'=1+1", "1,fine"]);
    expect(lines.at(-1)).toMatch(/^#error,the export stopped after 2 rows/);
    expect(text).not.toMatch(/relation|secret\/path/);
  });

  test("NDJSON ends with an error object the client can parse", async () => {
    const response = await exportResponse({ format: "ndjson", name: "x", columns, pages: pages(1) });
    const lines = (await response.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ id: 0, note: "=1+1" });
    expect(lines.at(-1)).toMatchObject({ error: { code: "export_failed" } });
  });

  test("a complete export has no error line", async () => {
    const text = await (await exportResponse({ format: "ndjson", name: "x", columns, pages: pages(99) })).text();
    expect(text.trimEnd().split("\n")).toHaveLength(4);
    expect(text).not.toContain("error");
  });
});
