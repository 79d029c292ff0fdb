/**
 * A value as it arrives after JSON: what a route answers and a server page hands the browser. The
 * browser's types of the API's responses are derived from the server's with this, not copied.
 */
export type Json<T> = unknown extends T
  ? T // unknown (a JSON column's value) stays unknown
  : T extends Date
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer U)[]
      ? Json<U>[]
      : T extends object
        ? { [K in keyof T]: Json<T[K]> }
        : never; // functions and symbols do not survive JSON

/** A server value as the browser will see it (dates as ISO text), for a server page's props. */
export function toJson<T>(value: T): Json<T> {
  return JSON.parse(JSON.stringify(value)) as Json<T>;
}
