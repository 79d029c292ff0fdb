"use server";

import { z } from "zod";
import { formAction } from "@/lib/platform/api/action";
import { formText } from "@/lib/platform/api/form-text";
import { ALERT_KIND_INFO, ALERT_KINDS, alertRulePatchSchema, alertRuleSchema } from "@/lib/features/alerts/alert-rules";
import { createAlertRuleAudited, deleteAlertRuleAudited, updateAlertRuleAudited } from "@/lib/features/alerts/alert-service";
import type { AlertKind } from "@/db/schema";

/**
 * The rule form's fields as the schema's input. The form sends every field; only the parameter
 * the chosen kind uses is sent on (the other may stay filled). Targets come as one JSON field
 * written by the form's target editor. Empty number fields are absent, not zero.
 */
function ruleFromForm(raw: FormData | Record<string, unknown>) {
  const form = raw instanceof FormData ? raw : new FormData();
  const text = formText(form);
  const number = (key: string) => {
    const value = text(key);
    return value === undefined ? undefined : Number(value);
  };
  const kind = text("kind");
  const parameter = (ALERT_KINDS as readonly string[]).includes(kind ?? "") ? ALERT_KIND_INFO[kind as AlertKind].parameter : "window";
  let targets: unknown = [];
  try {
    targets = JSON.parse(text("targets") ?? "[]");
  } catch {
    targets = "the targets could not be read";
  }
  return {
    name: text("name") ?? "",
    kind,
    agent: text("agent") ?? null,
    windowMinutes: parameter === "window" ? (number("windowMinutes") ?? null) : null,
    waitMinutes: parameter === "wait" ? (number("waitMinutes") ?? null) : null,
    threshold: number("threshold"),
    cooldownMinutes: number("cooldownMinutes"),
    targets,
    enabled: form.get("enabled") === "on",
  };
}

/** For a new rule, a cleared field is simply absent. */
function newRuleFromForm(raw: FormData | Record<string, unknown>) {
  const rule: Record<string, unknown> = ruleFromForm(raw);
  for (const key of Object.keys(rule)) if (rule[key] === null) delete rule[key];
  return rule;
}

export const createAlertRuleAction = formAction(
  { role: "admin", input: alertRuleSchema, read: newRuleFromForm, revalidate: ["/alerts"] },
  async ({ db, principal, input }) => {
    const rule = await createAlertRuleAudited(db, principal, input);
    return { redirectTo: `/alerts/${rule.id}?created=1` };
  },
);

const editSchema = alertRulePatchSchema.extend({ id: z.string() });

export const updateAlertRuleAction = formAction(
  {
    role: "admin",
    input: editSchema,
    // An emptied number field is a mistake to point at, not "keep the old value".
    read: (raw) => {
      const rule = ruleFromForm(raw);
      return { ...rule, threshold: rule.threshold ?? Number.NaN, cooldownMinutes: rule.cooldownMinutes ?? Number.NaN, id: raw instanceof FormData ? raw.get("id") : undefined };
    },
    revalidate: (input) => ["/alerts", `/alerts/${input.id}`],
  },
  async ({ db, principal, input }) => {
    const { id, ...patch } = input;
    const rule = await updateAlertRuleAudited(db, principal, id, patch);
    return { ok: true, message: `Alert rule ${rule.name} saved` };
  },
);

export const deleteAlertRuleAction = formAction(
  { role: "admin", input: z.object({ id: z.string() }), revalidate: ["/alerts"] },
  async ({ db, principal, input }) => {
    await deleteAlertRuleAudited(db, principal, input.id);
    return { redirectTo: "/alerts?deleted=1" };
  },
);
