/**
 * Batched statements of a commit group (db/statement-batches.ts) without a database: calls of one
 * text with distinct keys go as one execution whose parameters are their arrays joined in order, a
 * key already in a batch opens a second one after it, calls without a key and of other texts keep
 * their own executions in the group's order, and each caller gets exactly the rows of its key.
 */
import { expect, test } from "vitest";
import { groupUnits, settleUnit, type GroupedStatement } from "./statement-batches";

type Call = GroupedStatement & { id: string; rows?: unknown; resolve: (rows: never) => void };

function call(id: string, text: string, params: unknown[], batchKey?: string): Call {
  const c: Call = { id, text, params, batchKey, resolve: (rows) => (c.rows = rows) };
  return c;
}

test("distinct keys of one text share one execution, their arrays joined in order; a repeated key opens a second batch", () => {
  const a = call("a", "append", ['[{"r":"1","n":1}]', "[]"], "1");
  const b = call("b", "append", ['[{"r":"2","n":1}]', '[{"r":"2"}]'], "2");
  const other = call("other", "select 1", []);
  const a2 = call("a2", "append", ['[{"r":"1","n":2}]', '[{"r":"1"}]'], "1");
  const c = call("c", "append", ['[{"r":"3","n":1}]', "[]"], "3");
  const units = groupUnits([a, b, other, a2, c]);
  expect(units.map((u) => [u.text, u.members.map((m) => m.id), u.batched])).toEqual([
    ["append", ["a", "b", "c"], true],
    ["select 1", ["other"], false],
    ["append", ["a2"], true],
  ]);
  // Empty arrays leave no stray comma; each position joined separately.
  expect(units[0].params).toEqual(['[{"r":"1","n":1},{"r":"2","n":1},{"r":"3","n":1}]', '[{"r":"2"}]']);
  expect(JSON.parse(units[0].params[0] as string)).toHaveLength(3);
  // A batch of one keeps its own parameters, untouched.
  expect(units[2].params).toBe(a2.params);
});

test("calls without a key are never merged, even of one text", () => {
  const units = groupUnits([call("x", "insert", ["[1]"]), call("y", "insert", ["[2]"])]);
  expect(units.map((u) => u.members.map((m) => m.id))).toEqual([["x"], ["y"]]);
  expect(units.map((u) => u.params)).toEqual([["[1]"], ["[2]"]]);
});

test("a batched parameter that is not a JSON array's text is refused, not spliced", () => {
  expect(() => groupUnits([call("a", "append", ['{"r":"1"}'], "1"), call("b", "append", ['{"r":"2"}'], "2")])).toThrow(/\$1 must be a JSON array/);
  expect(() => groupUnits([call("a", "append", [7], "1"), call("b", "append", [8], "2")])).toThrow(TypeError);
});

test("each caller of a batch gets the rows of its key, in the order returned, and none when it has none", () => {
  const a = call("a", "append", ["[]"], "run-a");
  const b = call("b", "append", ["[]"], "run-b");
  const c = call("c", "append", ["[]"], "run-c");
  const [unit] = groupUnits([a, b, c]);
  settleUnit(unit, [
    { batch_key: "run-b", seq: 4 },
    { batch_key: "run-a", seq: 1 },
    { batch_key: "run-b", seq: 5 },
  ]);
  expect(a.rows).toEqual([{ batch_key: "run-a", seq: 1 }]);
  expect(b.rows).toEqual([
    { batch_key: "run-b", seq: 4 },
    { batch_key: "run-b", seq: 5 },
  ]);
  expect(c.rows).toEqual([]);
});

test("a unit of one caller gets all the rows as returned", () => {
  const alone = call("alone", "append", ["[]"], "k");
  const [unit] = groupUnits([alone]);
  const rows = [{ batch_key: "k", seq: 1 }, { other: true }];
  settleUnit(unit, rows);
  expect(alone.rows).toBe(rows);
});
