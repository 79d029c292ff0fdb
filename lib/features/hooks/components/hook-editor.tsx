"use client";

import { useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import { saveHookAction } from "@/lib/features/hooks/hook-actions";
import { Button } from "@/components/ui/button";
import { Field, Options, Select, TextInput } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { focusFirstInvalid } from "@/components/ui/invalid-field";
import { useActionForm } from "@/components/ui/use-action-form";
import { HookTestPanel } from "./hook-test-panel";
import { draftFromSpec, draftIssues, draftToInput, issueFor, showsHookTimeout, unplacedIssues, type HookDraft } from "@/lib/features/hooks/hook-draft";
import type { AgentRef, ScheduleRef, ScopeOption } from "@/lib/features/hooks/hook-scopes";
import { EVENT_CATALOG, EVENT_NAMES, OUTCOMES } from "@/lib/core/hooks/events";
import { ACTION_TYPES, type HookActionType, type HookSpec } from "@/lib/core/hooks/spec";
import { ActionFields } from "./action-fields";
import { MatcherPreview } from "./matcher-preview";

const ADMIN_ONLY: ReadonlySet<HookActionType> = new Set(["command", "code"]);

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <fieldset className="space-y-4 rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-900">
      <legend className="px-1 text-sm font-semibold">{title}</legend>
      {children}
    </fieldset>
  );
}

/**
 * Create or edit one hook. Each change is validated with the API's own schema (`parseHookSpec`)
 * and its issues shown under their fields; the server validates again on save.
 */
export function HookEditor({
  hook,
  agents,
  schedules,
  scopes,
  readOnly,
  isAdmin,
  instanceAdmin = false,
  defaults,
}: {
  hook?: { id: string; version: number; spec: HookSpec };
  agents: AgentRef[];
  schedules: ScheduleRef[];
  scopes: ScopeOption[];
  readOnly: boolean;
  isAdmin: boolean;
  /** May make the new hook instance-wide (a checkbox); instance-wide hooks are global. */
  instanceAdmin?: boolean;
  defaults?: { scope?: string; event?: string; instance?: boolean };
}) {
  const [draft, setDraft] = useState<HookDraft>(() => draftFromSpec(hook?.spec, defaults));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const { state, pending, formProps } = useActionForm(saveHookAction);
  // Bumped by a refused submit: once its problems are drawn, the first one is scrolled to and focused.
  const [refusedSubmits, setRefusedSubmits] = useState(0);
  useEffect(() => {
    if (refusedSubmits > 0) focusFirstInvalid(formProps.ref.current, []);
  }, [refusedSubmits, formProps.ref]);
  // A new version from elsewhere (a restore, this form's own save) becomes what the form shows.
  const [loadedVersion, setLoadedVersion] = useState(hook?.version);
  if (hook && hook.version !== loadedVersion) {
    setLoadedVersion(hook.version);
    setDraft(draftFromSpec(hook.spec));
    setTouched(new Set());
    setSubmitted(false);
  }

  const issues = useMemo(() => draftIssues(draft), [draft]);
  const specJson = useMemo(() => JSON.stringify(draftToInput(draft).input), [draft]);

  useEffect(() => {
    if (!state.message) return;
    setServerErrors(state.fieldErrors ?? {});
    if (state.ok) toast.success(state.message);
    else toast.error(state.message);
  }, [state]);

  const visible: Record<string, string> = { ...serverErrors };
  for (const [path, message] of Object.entries(issues)) {
    const field = path.startsWith("action.") ? path.split(/[.[]/).slice(0, 2).join(".") : path.split(/[.[]/)[0];
    if (submitted || touched.has(field)) visible[path] = message;
  }
  const error = (path: string) => issueFor(visible, path);

  const update = (field: string, patch: Partial<HookDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setTouched((t) => new Set(t).add(field));
    setServerErrors({});
  };
  const updateAction = (name: string, value: string) => {
    setDraft((d) => ({ ...d, action: { ...d.action, [name]: value } }));
    setTouched((t) => new Set(t).add(`action.${name}`));
    setServerErrors({});
  };

  const scopeChoices = scopes.some((s) => s.value === draft.scope) ? scopes : [...scopes, { value: draft.scope, label: draft.scope, kind: "agent" as const }];
  const stray = unplacedIssues(visible, draft.actionType);

  const scopeAgent = draft.scope.startsWith("agent:") ? agents.find((a) => `agent:${a.id}` === draft.scope) : undefined;
  return (
    <div className="space-y-8">
    <form
      {...formProps}
      className="max-w-3xl space-y-5"
      data-testid="hook-form"
      onSubmit={(e) => {
        setSubmitted(true);
        if (Object.keys(issues).length > 0) {
          e.preventDefault();
          setRefusedSubmits((n) => n + 1);
          toast.error(`Fix ${Object.keys(issues).length === 1 ? "the highlighted field" : "the highlighted fields"} first`);
          return;
        }
        formProps.onSubmit(e);
      }}
    >
      {hook && <input type="hidden" name="hookId" value={hook.id} />}
      {hook && <input type="hidden" name="version" value={hook.version} />}
      <input type="hidden" name="spec" value={specJson} />
      <fieldset disabled={readOnly || pending} className="space-y-5">
        {!hook && instanceAdmin && (
          <label className="flex items-center gap-2 text-sm" data-testid="hook-instance">
            <input type="checkbox" name="instance" value="1" defaultChecked={defaults?.instance} />
            Instance-wide: every project&apos;s runs meet it before their own hooks (scope Global; only instance admins may change it)
          </label>
        )}
        {draft.dialect && (
          <p className="text-sm text-muted-foreground" data-testid="hook-dialect">
            <span className="rounded border px-1.5 py-0.5 font-mono text-xs">{draft.dialect}</span> Imported from {draft.dialect}: this hook keeps
            its runtime contract (what it receives, how its answer is read; see docs/dialect-semantics.md).
          </p>
        )}
        <Section title="Hook">
          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
            <Field label="Id" htmlFor="hook-id" hint="Stable, unique in its scope: letters, digits, '_', '-', '.'." error={error("id")}>
              <TextInput id="hook-id" value={draft.id} onChange={(e) => update("id", { id: e.target.value })} className="font-mono" data-testid="hook-id-input" />
            </Field>
            <Field label="Name" htmlFor="hook-name" hint="A label for people." error={error("name")}>
              <TextInput id="hook-name" value={draft.name} onChange={(e) => update("name", { name: e.target.value })} />
            </Field>
            <Field label="Event" htmlFor="hook-event" hint={EVENT_CATALOG[draft.event as keyof typeof EVENT_CATALOG]?.description} error={error("event")}>
              <Select id="hook-event" value={draft.event} onChange={(e) => update("event", { event: e.target.value })}>
                {EVENT_NAMES.map((name) => (
                  <option key={name} value={name}>
                    {name}
                    {EVENT_CATALOG[name].blocking ? " (may block)" : ""}
                  </option>
                ))}
              </Select>
            </Field>
            <Field
              label="Scope"
              htmlFor="hook-scope"
              hint="Who and what it holds for. Global hooks run first, then a group's, a person's, the agent's, the schedule's; a block anywhere wins."
              error={error("scope")}
            >
              <Select id="hook-scope" value={draft.scope} onChange={(e) => update("scope", { scope: e.target.value })}>
                <Options choices={scopeChoices} />
              </Select>
            </Field>
          </div>
        </Section>

        <Section title="When it runs">
          <Field
            label="Matcher"
            htmlFor="hook-matcher"
            hint="A tool (or agent) name, A|B, * or a regex over the whole name. Empty matches every one."
            error={error("matcher")}
          >
            <TextInput id="hook-matcher" value={draft.matcher} onChange={(e) => update("matcher", { matcher: e.target.value })} className="font-mono" placeholder="write_file|shell" />
          </Field>
          <MatcherPreview matcher={draft.matcher} event={draft.event} scope={draft.scope} agents={agents} schedules={schedules} />
          <Field label="When" htmlFor="hook-when" hint='A dot path that must be truthy (metadata.shouldNotify) or "path: /regex/"; a leading ! negates it (!actor.groups: /"on-call"/).' error={error("when")}>
            <TextInput id="hook-when" value={draft.when} onChange={(e) => update("when", { when: e.target.value })} className="font-mono" />
          </Field>
          {draft.event === "session.end" && (
            <fieldset className="space-y-1" aria-describedby="outcomes-hint">
              <legend className="text-sm font-medium">Only on outcomes</legend>
              <div className="flex flex-wrap gap-3">
                {OUTCOMES.map((outcome) => (
                  <label key={outcome} className="flex items-center gap-1.5 font-mono text-sm">
                    <input
                      type="checkbox"
                      className="rounded"
                      checked={draft.onOutcomes.includes(outcome)}
                      onChange={(e) =>
                        update("onOutcomes", {
                          onOutcomes: e.target.checked ? [...draft.onOutcomes, outcome] : draft.onOutcomes.filter((o) => o !== outcome),
                        })
                      }
                    />
                    {outcome}
                  </label>
                ))}
              </div>
              <p id="outcomes-hint" className="text-xs text-zinc-500">
                None checked: every outcome.
              </p>
              {error("onOutcomes") && <p className="text-xs text-red-600 dark:text-red-400" role="alert">{error("onOutcomes")}</p>}
            </fieldset>
          )}
        </Section>

        <Section title="Action">
          <Field label="Action" htmlFor="action-type" error={error("action.type")}>
            <Select
              id="action-type"
              value={draft.actionType}
              onChange={(e) => update("action.type", { actionType: e.target.value as HookActionType })}
              data-testid="action-type"
            >
              {ACTION_TYPES.map((type) => (
                <option key={type} value={type} disabled={ADMIN_ONLY.has(type) && !isAdmin && type !== draft.actionType}>
                  {type}
                  {ADMIN_ONLY.has(type) ? " (admin only)" : ""}
                </option>
              ))}
            </Select>
          </Field>
          <ActionFields type={draft.actionType} values={draft.action} errors={visible} onChange={updateAction} />
        </Section>

        <Section title="Behaviour">
          <div className="flex flex-wrap gap-6">
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" className="rounded" checked={draft.enabled} onChange={(e) => update("enabled", { enabled: e.target.checked })} data-testid="hook-enabled" />
              Enabled
            </label>
            <fieldset className="flex items-center gap-4 text-sm">
              <legend className="sr-only">Mode</legend>
              {(["enforce", "shadow"] as const).map((mode) => (
                <label key={mode} className="flex items-center gap-1.5">
                  <input type="radio" name="hook-mode" value={mode} checked={draft.mode === mode} onChange={() => update("mode", { mode })} />
                  {mode === "enforce" ? "Enforce" : "Shadow (record, never block)"}
                </label>
              ))}
            </fieldset>
          </div>
          {(draft.exception || (draft.scope.startsWith("person:") && draft.actionType === "allow")) && (
            <div className="space-y-1">
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="rounded"
                  checked={draft.exception}
                  disabled={!isAdmin}
                  onChange={(e) => update("exception", { exception: e.target.checked })}
                  data-testid="hook-exception"
                />
                Exception: wins over the project&apos;s, the instance&apos;s and the groups&apos; block and approve hooks for this person&apos;s matching calls
              </label>
              <p className="text-xs text-zinc-500">
                {isAdmin ? "Deny wins otherwise. Rate limits and failed guards still hold." : "Only an admin may mark or change an exception."}
              </p>
              {error("exception") && (
                <p className="text-xs text-red-600 dark:text-red-400" role="alert">
                  {error("exception")}
                </p>
              )}
            </div>
          )}
          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
            {showsHookTimeout(draft, visible) && (
              <Field label="Timeout (ms)" htmlFor="hook-timeoutMs" hint="Milliseconds; empty uses the action's default." error={error("timeoutMs")}>
                <TextInput id="hook-timeoutMs" inputMode="numeric" value={draft.timeoutMs} onChange={(e) => update("timeoutMs", { timeoutMs: e.target.value })} placeholder="default" />
              </Field>
            )}
            <Field label="On failure" htmlFor="hook-onFailure" hint="What an error or timeout of this hook means." error={error("onFailure")}>
              <Select
                id="hook-onFailure"
                value={draft.onFailure}
                onChange={(e) => update("onFailure", { onFailure: e.target.value as HookDraft["onFailure"] })}
              >
                <option value="">default (block for gates on blocking events, else continue)</option>
                <option value="block">block</option>
                <option value="continue">continue</option>
              </Select>
            </Field>
          </div>
        </Section>
      </fieldset>

      {stray.length > 0 && (
        <ul role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          {stray.map((issue) => (
            <li key={issue.path}>
              <span className="font-mono">{issue.path}</span>: {issue.message}
            </li>
          ))}
        </ul>
      )}
      <FormMessage state={state} />
      {!readOnly && (
        <Button type="submit" disabled={pending} data-testid="save-hook">
          {pending ? "Saving…" : hook ? "Save as a new version" : "Create hook"}
        </Button>
      )}
    </form>
    {!readOnly && (
      <HookTestPanel
        spec={draftToInput(draft).input}
        agent={scopeAgent ? { id: scopeAgent.id, name: scopeAgent.name } : undefined}
        agents={agents.map((a) => ({ id: a.id, name: a.name }))}
      />
    )}
    </div>
  );
}
