/**
 * A decision link: GET shows the confirmation page (deciding nothing), POST is its form.
 * Outside the dashboard on purpose: it works signed out (lib/features/approvals/decision-page.ts).
 */
import { getDatabase } from "@/db/client";
import { confirmDecisionLink, failurePage, renderDecided, renderLinkState, resolveDecisionLink } from "@/lib/features/approvals/decision-page";

type Context = { params: Promise<{ token: string }> };

export async function GET(_request: Request, context: Context): Promise<Response> {
  try {
    const { token } = await context.params;
    const { db } = await getDatabase();
    return await renderLinkState(db, token, await resolveDecisionLink(db, token));
  } catch (error) {
    return failurePage(error);
  }
}

export async function POST(request: Request, context: Context): Promise<Response> {
  try {
    const { token } = await context.params;
    const { db } = await getDatabase();
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      form = new FormData();
    }
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value : undefined;
    };
    const result = await confirmDecisionLink(db, token, { confirm: text("confirm"), reason: text("reason"), input: text("input") });
    if (result.decided && result.state.kind === "open") return renderDecided(result.decided, result.state.approval);
    return await renderLinkState(db, token, result.state);
  } catch (error) {
    return failurePage(error);
  }
}
