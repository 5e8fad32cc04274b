import { MediaFetchError, requestVetted, vetUrl, type Resolver } from "../media/safe-fetch.ts";

/** WEBHOOK_* settings that shape each attempt and its schedule. */
export type WebhookSettings = {
  /** How long an attempt waits for the receiver's answer (WEBHOOK_TIMEOUT_SECONDS, default 15 s as the spec recommends). */
  timeoutMs: number;
  /** WEBHOOK_ALLOWED_NETWORKS: where endpoints may be although not public (an operator's own receivers). */
  allowedNetworks: readonly string[];
  /** The delays after the successive failures of a message (WEBHOOK_RETRY_SCHEDULE_SECONDS). */
  retryScheduleMs: readonly number[];
  /** DNS, injectable for tests. */
  resolve?: Resolver;
};

export type SendResult = { statusCode: number | null; durationMs: number; error: string | null };

/**
 * POSTs one signed message. The URL is vetted again on every attempt (its DNS answer may have changed
 * since it was registered) and the connection goes to the vetted address; a redirect is not followed
 * (a 3xx is a failure, as the spec advises). Never throws: every way it can go wrong is an outcome.
 */
export async function postMessage(url: string, headers: Record<string, string>, body: string, settings: WebhookSettings): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  const seconds = Math.round(settings.timeoutMs / 1000);
  const timer = setTimeout(() => controller.abort(new MediaFetchError(`no answer within ${seconds} s`)), settings.timeoutMs);
  try {
    const vetted = await vetUrl(url, { allowLoopback: false, allowedNetworks: settings.allowedNetworks, resolve: settings.resolve });
    const response = await requestVetted(vetted.url, vetted.addresses, controller.signal, { method: "POST", headers, body });
    const durationMs = elapsed();
    // The answer's body means nothing to us: drop it without reading it into memory.
    response.resume();
    response.on("error", () => undefined);
    const statusCode = response.statusCode ?? null;
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { statusCode, durationMs, error: null };
    const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400 ? " (redirects are not followed: register the final URL)" : "";
    return { statusCode, durationMs, error: `the endpoint answered ${statusCode ?? "nothing"}${redirect}` };
  } catch (error) {
    const message = error instanceof MediaFetchError ? error.message : "the request failed";
    return { statusCode: null, durationMs: elapsed(), error: message };
  } finally {
    clearTimeout(timer);
  }
}
