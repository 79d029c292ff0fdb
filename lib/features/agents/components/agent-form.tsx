"use client";

import { saveAgentAction } from "@/lib/features/agents/agent-actions";
import { Button } from "@/components/ui/button";
import { Field, Options, Select, TextArea, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";
import { KNOWN_TOOLS } from "@/lib/features/agents/agent-form-data";
import type { AgentSpec } from "@/lib/core/agent/agent-spec";

const FAIL_MODE_CHOICES = [
  { value: "", label: "Each CLI decides (block, unless run with --fail-open)" },
  { value: "closed", label: "Fail closed: block it (overrides --fail-open)" },
  { value: "open", label: "Fail open: let it through" },
];

type AgentValues = Partial<AgentSpec> & { id?: string };

/**
 * `retention`: the instance default shown beside the agent's own window, and whether this person may
 * change it (admins: a shorter window deletes runs). Read only, the field is still sent as it was.
 */
export function AgentForm({
  agent,
  readOnly,
  retention,
}: {
  agent?: AgentValues;
  readOnly: boolean;
  retention?: { defaultDays: number; mayChange: boolean };
}) {
  const { state, pending, formProps, errorAt } = useActionForm(saveAgentAction);
  const extraTools = (agent?.tools ?? []).filter((t) => !(KNOWN_TOOLS as readonly string[]).includes(t));
  return (
    <form {...formProps} className="max-w-3xl space-y-5" data-testid="agent-form">
      {agent?.id && <input type="hidden" name="id" value={agent.id} />}
      <fieldset disabled={readOnly || pending} className="space-y-5">
        <div className="grid grid-cols-1 gap-5 md:grid-cols-2">
          <Field label="Name" htmlFor="name" hint="Unique; usable in place of the id in the API." error={errorAt("name")}>
            <TextInput id="name" name="name" defaultValue={agent?.name} required data-testid="agent-name-input" />
          </Field>
          <Field label="Model" htmlFor="model" hint='"scripted", "openai:<model>" or "anthropic:<model>".' error={errorAt("model")}>
            <TextInput id="model" name="model" defaultValue={agent?.model ?? "scripted"} list="model-suggestions" />
          </Field>
          <datalist id="model-suggestions">
            <option value="scripted" />
            <option value="openai:gpt-4.1-mini" />
            <option value="anthropic:claude-sonnet-4-5" />
          </datalist>
        </div>
        <Field label="Description" htmlFor="description" error={errorAt("description")}>
          <TextInput id="description" name="description" defaultValue={agent?.description} />
        </Field>
        <Field label="Instructions" htmlFor="instructions" hint="The system prompt." error={errorAt("instructions")}>
          <TextArea id="instructions" name="instructions" rows={4} defaultValue={agent?.instructions} />
        </Field>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">Tools</legend>
          <div className="flex flex-wrap gap-3">
            {KNOWN_TOOLS.map((tool) => (
              <label key={tool} className="flex items-center gap-1.5 font-mono text-sm">
                <input type="checkbox" name="tools" value={tool} defaultChecked={agent?.tools?.includes(tool)} className="rounded" />
                {tool}
              </label>
            ))}
          </div>
          <TextInput name="extraTools" aria-label="Other tools" placeholder="Other tools, comma-separated" defaultValue={extraTools.join(", ")} />
          {errorAt("tools") && (
            <p role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid="error-tools">
              {errorAt("tools")}
            </p>
          )}
        </fieldset>
        <div className="grid grid-cols-1 gap-5 md:grid-cols-4">
          <Field label="Max turns" htmlFor="maxTurns" error={errorAt("maxTurns")}>
            <TextInput id="maxTurns" name="maxTurns" inputMode="numeric" defaultValue={agent?.maxTurns ?? 20} />
          </Field>
          <Field label="Timeout (ms)" htmlFor="timeoutMs" hint="Wall clock per run." error={errorAt("timeoutMs")}>
            <TextInput id="timeoutMs" name="timeoutMs" inputMode="numeric" defaultValue={agent?.timeoutMs ?? 600000} />
          </Field>
          <Field label="Run budget (USD)" htmlFor="budgetUsd" error={errorAt("budgetUsd")}>
            <TextInput id="budgetUsd" name="budgetUsd" inputMode="decimal" defaultValue={agent?.budgetUsd} placeholder="none" />
          </Field>
          <Field label="Daily budget (USD)" htmlFor="dailyBudgetUsd" error={errorAt("dailyBudgetUsd")}>
            <TextInput id="dailyBudgetUsd" name="dailyBudgetUsd" inputMode="decimal" defaultValue={agent?.dailyBudgetUsd} placeholder="none" />
          </Field>
        </div>
        <Field
          label="Daily budget per person (USD)"
          htmlFor="dailyBudgetPerPersonUsd"
          hint="What each person's coding agents may spend a UTC day in this agent's sessions; past it their tool calls are refused until 00:00 UTC."
          error={errorAt("dailyBudgetPerPersonUsd")}
        >
          <TextInput id="dailyBudgetPerPersonUsd" name="dailyBudgetPerPersonUsd" inputMode="decimal" defaultValue={agent?.dailyBudgetPerPersonUsd} placeholder="none" />
        </Field>
        <Field
          label="When Hookplane cannot answer"
          htmlFor="failMode"
          hint="What each developer's hookplane CLI does with a tool call or prompt while Hookplane is down or failing. Either way the CLI keeps the decision and reports it when Hookplane is back; a call let through against a fail-closed policy raises the “Let through offline against policy” alert."
          error={errorAt("failMode")}
        >
          <Select id="failMode" name="failMode" defaultValue={agent?.failMode ?? ""}>
            <Options choices={FAIL_MODE_CHOICES} />
          </Select>
        </Field>
        <div className="grid grid-cols-1 gap-5 md:grid-cols-2">
          <Field label="Metadata file" htmlFor="metadataFile" hint="A JSON file the agent writes, relative to its workspace; hooks see it as metadata." error={errorAt("metadataFile")}>
            <TextInput id="metadataFile" name="metadataFile" defaultValue={agent?.metadataFile} placeholder="metadata.json" />
          </Field>
          <Field label="Flow" htmlFor="flow" hint="Agents run in sequence, comma-separated." error={errorAt("flow")}>
            <TextInput id="flow" name="flow" defaultValue={agent?.flow?.join(", ")} />
          </Field>
        </div>
        <Field
          label="Code hooks"
          htmlFor="codeHooks"
          hint="Ids of the operator's defineHook modules (HOOKPLANE_HOOKS_DIR), comma-separated, run in this order. A run's own list overrides these."
          error={errorAt("codeHooks")}
        >
          <TextInput id="codeHooks" name="codeHooks" defaultValue={agent?.codeHooks?.join(", ")} placeholder="redact_tokens, trim_history" className="font-mono" />
        </Field>
        <Field
          label="Tools safe to retry"
          htmlFor="retryTools"
          hint="Comma-separated. After a crash, a call of these tools that never recorded its result runs again; any other tool that is not read-only runs at most once and reports interrupted."
          error={errorAt("retryTools")}
        >
          <TextInput id="retryTools" name="retryTools" defaultValue={agent?.retryTools?.join(", ")} placeholder="none" className="font-mono" />
        </Field>
        <Field
          label="Keep runs (days)"
          htmlFor="retentionDays"
          hint={
            <>
              Whole UTC days after a run finishes before retention deletes it with its events, transcript and approvals. Empty: the
              instance default ({retention && retention.defaultDays > 0 ? `${retention.defaultDays} days` : "forever"}, in Settings); 0: forever.
              {retention && !retention.mayChange && " Only admins change it."}
            </>
          }
          error={errorAt("retentionDays")}
        >
          <TextInput
            id="retentionDays"
            name="retentionDays"
            inputMode="numeric"
            defaultValue={agent?.retentionDays}
            placeholder="default"
            readOnly={retention ? !retention.mayChange : false}
            data-testid="agent-retention-input"
          />
        </Field>
        <Field
          label="Script (scripted model)"
          htmlFor="script"
          hint='JSON list of turns: [{"text": "...", "toolCalls": [{"name": "shell", "input": {"command": "ls"}}], "usage": {"inputTokens": 10, "outputTokens": 5}}]'
          error={errorAt("script")}
        >
          <TextArea id="script" name="script" rows={6} defaultValue={agent?.script ? JSON.stringify(agent.script, null, 2) : ""} className={inputClass} />
        </Field>
      </fieldset>
      <FormMessage state={state} />
      {!readOnly && (
        <Button type="submit" disabled={pending} data-testid="save-agent">
          {pending ? "Saving…" : agent?.id ? "Save changes" : "Create agent"}
        </Button>
      )}
    </form>
  );
}
