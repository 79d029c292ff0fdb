/** What config-schema.ts says of each environment variable (its header says how the fields are used). */
import type { z } from "zod";

export interface VariableSpec {
  /** From the raw text to the typed value. */
  schema: z.ZodType<unknown, string>;
  /** The raw value of an unset variable, or a function computing it at start (with `defaultText`). */
  default?: string | (() => string);
  /** The docs' default column when `default` is not it (a computed or "unset" value). */
  defaultText?: string;
  description: string;
  secret?: boolean;
  readBy?: string;
  /** No longer read: set, it is named in the start log and in Settings as ignored. */
  retired?: boolean;
}
