"use client";

import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { createAlertRuleAction, updateAlertRuleAction } from "@/lib/features/alerts/alert-actions";
import { ALERT_KIND_INFO, ALERT_KINDS } from "@/lib/features/alerts/alert-rules";
import type { AlertKind, AlertTarget } from "@/db/schema";
import { Button } from "@/components/ui/button";
import { Field, Options, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

type TargetType = AlertTarget["type"];

/** One target as the form edits it: every field of every type, so switching type keeps what was typed. */
interface TargetDraft {
  key: number;
  type: TargetType;
  channel: string;
  tokenSecret: string;
  url: string;
  authorization: string;
  /** Webhook headers other than authorization, kept as they were. */
  otherHeaders: Record<string, string>;
  to: string;
}

export interface AlertRuleFormValues {
  id?: string;
  name: string;
  kind: AlertKind;
  agentId?: string;
  windowMinutes?: number;
  waitMinutes?: number;
  threshold: number;
  cooldownMinutes: number;
  targets: AlertTarget[];
  enabled: boolean;
}

let nextKey = 1;

function draftOf(target?: AlertTarget): TargetDraft {
  const draft: TargetDraft = { key: nextKey++, type: target?.type ?? "slack", channel: "", tokenSecret: "", url: "", authorization: "", otherHeaders: {}, to: "" };
  if (!target) return draft;
  if (target.type === "slack" || target.type === "discord") return { ...draft, channel: target.channel, tokenSecret: target.tokenSecret };
  if (target.type === "email") return { ...draft, to: target.to.join(", ") };
  const { authorization = "", ...otherHeaders } = target.headers ?? {};
  return { ...draft, url: target.url, authorization, otherHeaders };
}

function targetOf(d: TargetDraft): unknown {
  switch (d.type) {
    case "slack":
    case "discord":
      return { type: d.type, channel: d.channel.trim(), tokenSecret: d.tokenSecret.trim() };
    case "webhook":
      return { type: "webhook", url: d.url.trim(), headers: { ...d.otherHeaders, ...(d.authorization.trim() && { authorization: d.authorization.trim() }) } };
    case "email":
      return { type: "email", to: d.to.split(/[\s,;]+/).filter(Boolean) };
  }
}

const TARGET_LABELS: Record<TargetType, string> = { slack: "Slack channel", discord: "Discord channel", webhook: "Webhook", email: "Email" };

export function AlertRuleForm({
  agents,
  initial,
  smtpConfigured,
}: {
  agents: { id: string; name: string }[];
  /** The rule being edited; none for a new rule. */
  initial?: AlertRuleFormValues;
  smtpConfigured: boolean;
}) {
  const editing = initial?.id !== undefined;
  const { state, pending, formProps } = useActionForm(editing ? updateAlertRuleAction : createAlertRuleAction);
  const [kind, setKind] = useState<AlertKind>(initial?.kind ?? "cost");
  const [targets, setTargets] = useState<TargetDraft[]>(() => (initial?.targets ?? []).map(draftOf));
  const info = ALERT_KIND_INFO[kind];
  const errors = state.fieldErrors ?? {};
  const idFor = (field: string) => `alert-${initial?.id ?? "new"}-${field}`;

  const update = (key: number, change: Partial<TargetDraft>) => setTargets((list) => list.map((t) => (t.key === key ? { ...t, ...change } : t)));
  /** The first problem of target `i` at `field`, or under it (`to[0]`). */
  const targetError = (i: number, ...fields: string[]) =>
    fields.map((f) => Object.entries(errors).find(([path]) => path === `targets[${i}].${f}` || path.startsWith(`targets[${i}].${f}[`) || path.startsWith(`targets[${i}].${f}.`))?.[1]).find(Boolean);

  return (
    <form {...formProps} className="space-y-4" data-testid="alert-rule-form">
      {editing && <input type="hidden" name="id" value={initial!.id} />}
      <input type="hidden" name="targets" value={JSON.stringify(targets.map(targetOf))} />
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <Field label="Name" htmlFor={idFor("name")} error={errors.name}>
          <TextInput id={idFor("name")} name="name" defaultValue={initial?.name} placeholder="ops-spend" maxLength={200} />
        </Field>
        <Field label="Watches" htmlFor={idFor("kind")} error={errors.kind} hint={info.describe}>
          <select id={idFor("kind")} name="kind" value={kind} onChange={(e) => setKind(e.target.value as AlertKind)} className={inputClass}>
            <Options choices={ALERT_KINDS.map((k) => ({ value: k, label: ALERT_KIND_INFO[k].label }))} />
          </select>
        </Field>
        <Field label="Agent" htmlFor={idFor("agent")} error={errors.agent}>
          <select id={idFor("agent")} name="agent" defaultValue={initial?.agentId ?? ""} className={inputClass}>
            <option value="">All agents</option>
            <Options choices={agents.map((a) => ({ value: a.id, label: a.name }))} />
          </select>
        </Field>
        {info.parameter === "window" && (
          <Field label="Window (minutes)" htmlFor={idFor("window")} error={errors.windowMinutes} hint="Summed or counted over the last this many minutes: 60 is an hour">
            <TextInput id={idFor("window")} name="windowMinutes" type="number" min={1} step={1} defaultValue={initial?.windowMinutes ?? 60} />
          </Field>
        )}
        {info.parameter === "wait" && (
          <Field label="Waiting longer than (minutes)" htmlFor={idFor("wait")} error={errors.waitMinutes}>
            <TextInput id={idFor("wait")} name="waitMinutes" type="number" min={1} step={1} defaultValue={initial?.waitMinutes ?? 15} />
          </Field>
        )}
        <Field
          label={info.unit === "usd" ? "Fires above (USD)" : "Fires above (count)"}
          htmlFor={idFor("threshold")}
          error={errors.threshold}
          hint={info.unit === "usd" ? "e.g. 10 for $10" : "0 fires on the first one"}
        >
          <TextInput id={idFor("threshold")} name="threshold" type="number" min={0} step="any" defaultValue={initial?.threshold ?? (info.unit === "usd" ? 10 : 0)} />
        </Field>
        <Field label="Cooldown (minutes)" htmlFor={idFor("cooldown")} error={errors.cooldownMinutes} hint="At most one firing notice per cooldown; a reminder after it while still firing">
          <TextInput id={idFor("cooldown")} name="cooldownMinutes" type="number" min={1} step={1} defaultValue={initial?.cooldownMinutes ?? 60} />
        </Field>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="enabled" defaultChecked={initial?.enabled ?? true} className="h-4 w-4 rounded border-zinc-300 dark:border-zinc-700" />
        Enabled
      </label>

      <fieldset className="space-y-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800" data-testid="alert-targets">
        <legend className="px-1 text-sm font-medium">Tell</legend>
        {targets.length === 0 && <p className="text-xs text-zinc-500">No targets: firings are only recorded and shown here.</p>}
        {errors.targets && <p className="text-xs text-red-600 dark:text-red-400" role="alert">{errors.targets}</p>}
        {targets.map((t, i) => (
          <div key={t.key} className={`grid gap-3 sm:grid-cols-[10rem_1fr_1fr_auto] sm:items-start ${i > 0 ? "border-t border-zinc-100 pt-3 dark:border-zinc-800" : ""}`} data-testid="alert-target">
            <Field label="Target" htmlFor={idFor(`t${t.key}-type`)} error={targetError(i, "type")}>
              <select id={idFor(`t${t.key}-type`)} value={t.type} onChange={(e) => update(t.key, { type: e.target.value as TargetType })} className={inputClass}>
                {(Object.keys(TARGET_LABELS) as TargetType[]).map((type) => (
                  <option key={type} value={type} disabled={type === "email" && !smtpConfigured && t.type !== "email"}>
                    {TARGET_LABELS[type]}
                    {type === "email" && !smtpConfigured ? " (needs SMTP)" : ""}
                  </option>
                ))}
              </select>
            </Field>
            {(t.type === "slack" || t.type === "discord") && (
              <>
                <Field label="Channel" htmlFor={idFor(`t${t.key}-channel`)} error={targetError(i, "channel")} hint={t.type === "slack" ? "A channel id or #name" : "The channel id"}>
                  <TextInput id={idFor(`t${t.key}-channel`)} value={t.channel} onChange={(e) => update(t.key, { channel: e.target.value })} />
                </Field>
                <Field label="Token secret" htmlFor={idFor(`t${t.key}-secret`)} error={targetError(i, "tokenSecret")} hint="The name of the secret holding the bot token">
                  <TextInput id={idFor(`t${t.key}-secret`)} value={t.tokenSecret} onChange={(e) => update(t.key, { tokenSecret: e.target.value })} className="font-mono" placeholder={t.type === "slack" ? "SLACK_BOT_TOKEN" : "DISCORD_BOT_TOKEN"} />
                </Field>
              </>
            )}
            {t.type === "webhook" && (
              <>
                <Field label="URL" htmlFor={idFor(`t${t.key}-url`)} error={targetError(i, "url")}>
                  <TextInput id={idFor(`t${t.key}-url`)} value={t.url} onChange={(e) => update(t.key, { url: e.target.value })} placeholder="https://hooks.example.com/alerts" />
                </Field>
                <Field label="Authorization header" htmlFor={idFor(`t${t.key}-auth`)} error={targetError(i, "headers")} hint="Optional; secrets as ${secret:NAME}">
                  <TextInput id={idFor(`t${t.key}-auth`)} value={t.authorization} onChange={(e) => update(t.key, { authorization: e.target.value })} className="font-mono" placeholder="Bearer ${secret:HOOK_TOKEN}" />
                </Field>
              </>
            )}
            {t.type === "email" && (
              <div className="sm:col-span-2">
                <Field label="To" htmlFor={idFor(`t${t.key}-to`)} error={targetError(i, "to")} hint="Addresses, separated by commas">
                  <TextInput id={idFor(`t${t.key}-to`)} value={t.to} onChange={(e) => update(t.key, { to: e.target.value })} placeholder="ops@example.com" />
                </Field>
              </div>
            )}
            <button
              type="button"
              onClick={() => setTargets((list) => list.filter((x) => x.key !== t.key))}
              className="mt-6 inline-flex items-center gap-1 rounded-md px-2 py-2 text-xs text-red-600 hover:bg-red-50 dark:hover:bg-red-950"
              aria-label={`Remove target ${i + 1}`}
            >
              <Trash2 className="h-4 w-4" aria-hidden />
            </button>
          </div>
        ))}
        <Button type="button" variant="secondary" onClick={() => setTargets((list) => [...list, draftOf()])} data-testid="add-alert-target">
          <Plus className="h-4 w-4" aria-hidden />
          Add a target
        </Button>
      </fieldset>

      <div className="flex items-center gap-3">
        <Button type="submit" disabled={pending} data-testid="save-alert-rule">
          {pending ? "Saving…" : editing ? "Save rule" : "Create rule"}
        </Button>
      </div>
      <FormMessage state={state} />
    </form>
  );
}
