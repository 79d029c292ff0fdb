"use server";

import { agentFromForm } from "@/lib/features/agents/agent-form-data";
import { createAgentAudited, deleteAgentAudited, updateAgentAudited } from "@/lib/features/agents/agent-service";
import { agentRefSchema, agentSpecSchema } from "@/lib/features/agents/schema";
import { formAction, readWithIssues } from "@/lib/platform/api/action";

/** Creates an agent, or replaces the one named by the hidden `id` field. */
export const saveAgentAction = formAction(
  {
    role: "operator",
    input: agentSpecSchema,
    read: (raw) => {
      const { value, scriptError } = agentFromForm(raw instanceof FormData ? raw : new FormData());
      // The rest of the form is still checked: bad JSON in the script is one problem among several.
      return scriptError ? readWithIssues(value, [{ path: "script", message: scriptError }]) : value;
    },
    revalidate: ["/agents"],
  },
  async ({ db, principal, input, raw }) => {
    const id = raw instanceof FormData ? raw.get("id") : undefined;
    const saved =
      typeof id === "string" && id
        ? await updateAgentAudited(db, principal, id, input, { replace: true })
        : await createAgentAudited(db, principal, input);
    return { redirectTo: `/agents/${saved.id}?saved=1` };
  },
);

export const deleteAgentAction = formAction(
  { role: "operator", input: agentRefSchema, revalidate: ["/agents"] },
  async ({ db, principal, input }) => {
    await deleteAgentAudited(db, principal, input.id);
    return { redirectTo: "/agents?deleted=1" };
  },
);
