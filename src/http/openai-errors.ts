/**
 * OpenAI's error shape, `{error: {message, type, param, code}}`, which the OpenAI-compatible routes
 * (`/v1/...`) answer in: clients written for OpenAI (its official SDKs included) read `error.message` and
 * choose their exception by status. Only those routes use it; the rest of the API keeps spec section 7's
 * `{message}`. The error handler and the request limits ask `isOpenAiPath` and retell their answers here,
 * so the one mapping of errors stays in one place.
 */

export type OpenAiErrorType = "invalid_request_error" | "authentication_error" | "permission_error" | "not_found_error" | "rate_limit_error" | "server_error";

export type OpenAiErrorBody = { error: { message: string; type: OpenAiErrorType; param: string | null; code: string | null } };

export const isOpenAiPath = (path: string): boolean => path === "/v1" || path.startsWith("/v1/");

// The base: a request without a Host (HTTP/1.0) has a relative URL.
export const isOpenAiRequest = (request: Request): boolean => isOpenAiPath(new URL(request.url, "http://localhost").pathname);

/** The type OpenAI gives a status (its SDKs raise AuthenticationError for 401, RateLimitError for 429, ...). */
export function openAiErrorType(status: number): OpenAiErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

const defaultCodes: Record<number, string> = { 401: "invalid_api_key", 413: "file_too_large", 429: "rate_limit_exceeded" };

/**
 * An answer only the OpenAI-compatible routes give, with the status and type OpenAI would: a
 * transcription past its wait, a task that failed. `headers` go with it (`x-should-retry: false` where
 * a retry would create a second task).
 */
export class OpenAiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    readonly headers: Record<string, string> = {},
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = "OpenAiError";
  }

  response(): Response {
    return openAiErrorJson(this.status, this.message, { code: this.code, param: this.param, headers: this.headers });
  }
}

export function openAiErrorJson(
  status: number,
  message: string,
  options: { param?: string | null; code?: string | null; headers?: Record<string, string> } = {},
): Response {
  const body: OpenAiErrorBody = {
    error: { message, type: openAiErrorType(status), param: options.param ?? null, code: options.code ?? defaultCodes[status] ?? null },
  };
  return new Response(JSON.stringify(body), { status, headers: { ...options.headers, "content-type": "application/json" } });
}

/**
 * An answer in the API's own shape (`{message, errors?}`) retold in OpenAI's: a 422 becomes OpenAI's 400
 * with the first failing field as `param`; other statuses and headers (Retry-After) are kept.
 */
export async function inOpenAiShape(answer: Response): Promise<Response> {
  const body = (await answer.json().catch(() => ({}))) as { message?: unknown; errors?: Record<string, unknown> };
  const message = typeof body.message === "string" ? body.message : "The request failed.";
  const headers = Object.fromEntries(answer.headers);
  if (answer.status !== 422) return openAiErrorJson(answer.status, message, { headers });
  const param = Object.keys(body.errors ?? {})[0] ?? null;
  return openAiErrorJson(400, message, { param, headers });
}
