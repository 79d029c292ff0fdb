"use client";

import { Field, Select, TextArea, TextInput } from "@/components/ui/field";
import { actionFieldPath, issueFor, visibleActionFields } from "@/lib/features/hooks/hook-draft";
import type { HookActionType } from "@/lib/core/hooks/spec";

/** The fields of one action type; they change with the type, their text is kept across changes. */
export function ActionFields({
  type,
  values,
  errors,
  onChange,
}: {
  type: HookActionType;
  values: Record<string, string>;
  errors: Record<string, string>;
  onChange: (name: string, value: string) => void;
}) {
  return (
    <div className="grid grid-cols-1 gap-4 md:grid-cols-2" data-testid="action-fields" data-action-type={type}>
      {visibleActionFields(type, values, errors).map((field) => {
        const id = `action-${field.name}`;
        const value = values[field.name] ?? "";
        const error = issueFor(errors, `action.${actionFieldPath(field)}`);
        const wide = field.kind === "textarea" || field.kind === "json";
        const common = { id, value, "aria-invalid": Boolean(error), placeholder: field.placeholder };
        return (
          <div key={field.name} className={wide ? "md:col-span-2" : undefined}>
            <Field label={field.label} htmlFor={id} hint={field.hint} error={error}>
              {field.kind === "select" ? (
                <Select {...common} onChange={(e) => onChange(field.name, e.target.value)}>
                  <option value="">default{field.options ? ` (${field.options[0]})` : ""}</option>
                  {field.options?.map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </Select>
              ) : wide ? (
                <TextArea {...common} rows={field.kind === "json" ? 4 : 3} onChange={(e) => onChange(field.name, e.target.value)} />
              ) : (
                <TextInput
                  {...common}
                  inputMode={field.kind === "number" ? "numeric" : undefined}
                  className={field.kind === "text" && /regex/i.test(field.label) ? "font-mono" : undefined}
                  onChange={(e) => onChange(field.name, e.target.value)}
                />
              )}
            </Field>
          </div>
        );
      })}
    </div>
  );
}
