import type { OpenAiEndpoint } from "./config.ts";

/** `https://host` and `https://host/v1` both name an OpenAI-compatible API; `path` is under /v1. */
export function endpointUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/${path}`;
}

/** Thrown for an answer that is not worth repeating (4xx other than 429) or after the last attempt. */
export class UpstreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UpstreamError";
  }
}

async function describeFailure(response: Response): Promise<string> {
  const body = await response.text().catch(() => "");
  try {
    const message = (JSON.parse(body) as { error?: { message?: string } | string }).error;
    const text = typeof message === "string" ? message : message?.message;
    if (text) return `${response.status}: ${text}`;
  } catch {
    // not JSON
  }
  return `${response.status}${body ? `: ${body.slice(0, 200)}` : ""}`;
}

/**
 * POSTs to an OpenAI-compatible endpoint and returns the JSON answer. Network errors, 429 and 5xx are
 * tried again (3 attempts, 1 s then 2 s apart); `body` is rebuilt for each attempt.
 */
export async function postOpenAi<T>(
  endpoint: OpenAiEndpoint,
  path: string,
  body: () => string | FormData,
  options: { json?: boolean; signal?: AbortSignal; timeoutMs?: number; service: string },
): Promise<T> {
  const headers: Record<string, string> = {};
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  if (options.json) headers["content-type"] = "application/json";
  let last = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (attempt > 1) await Bun.sleep(1000 * (attempt - 1));
    options.signal?.throwIfAborted();
    const signals = [AbortSignal.timeout(options.timeoutMs ?? 300_000), ...(options.signal ? [options.signal] : [])];
    let response: Response;
    try {
      response = await fetch(endpointUrl(endpoint.url, path), { method: "POST", headers, body: body(), signal: AbortSignal.any(signals) });
    } catch (error) {
      options.signal?.throwIfAborted();
      last = `could not be reached (${(error as Error).message})`;
      continue;
    }
    if (response.ok) {
      try {
        return (await response.json()) as T;
      } catch {
        throw new UpstreamError(`The ${options.service} answered with something that is not JSON.`);
      }
    }
    last = `answered ${await describeFailure(response)}`;
    if (response.status !== 429 && response.status < 500) break;
  }
  throw new UpstreamError(`The ${options.service} ${last}`);
}
