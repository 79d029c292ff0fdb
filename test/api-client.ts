/**
 * Calls route handlers in-process with real Request objects, for the API integration tests.
 */
type Handler = (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>;

export async function callRoute(
  handler: Handler,
  init: { method?: string; path?: string; token?: string; body?: unknown; rawBody?: string; params?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const request = new Request(`http://localhost${init.path ?? "/"}`, {
    method: init.method ?? "GET",
    headers,
    body: init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const response = await handler(request, { params: Promise.resolve(init.params ?? {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
