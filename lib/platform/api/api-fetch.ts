/**
 * Browser calls to the public API: the session cookie authenticates; errors keep api.md's message.
 */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues?: { path: string; message: string }[],
  ) {
    super(message);
  }
}

export async function apiFetch<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(path, {
    ...init,
    headers: { "content-type": "application/json", ...(init?.headers ?? {}) },
    credentials: "same-origin",
  });
  if (response.status === 204) return undefined as T;
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = body?.error;
    throw new ApiClientError(response.status, error?.message ?? `Request failed (${response.status})`, error?.issues);
  }
  return body as T;
}
