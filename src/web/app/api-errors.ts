/* The API's errors as the app shows them. Nothing here uses the DOM or the API client, so unit tests import it as it is. */

/**
 * The API's one error shape (`{message, errors}`, spec section 7) as an exception: `fields` holds the
 * messages per field of a 422, which forms show next to their fields.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[]> = {},
    /** A 429's Retry-After, in seconds; null when it gave none. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  static of(error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    return new ApiError(0, "Something went wrong. Please try again.");
  }
}

/** "42 seconds", "1 second"; a wait over 90 seconds in whole minutes. */
export function waitInWords(seconds: number): string {
  if (seconds <= 90) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** Retry-After as seconds: its delay-seconds form, or its HTTP date; null when absent or unreadable. */
function retryAfterOf(response: Response): number | null {
  const value = response.headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(1, Math.ceil((at - Date.now()) / 1000));
}

/**
 * The error of an answer. A 429 with Retry-After says when to try again in words, after the reason's first sentence
 * ("Too many login attempts. Try again in 42 seconds."); one without (3 tasks in progress) keeps the server's words.
 */
export function errorOf(response: Response, body: unknown): ApiError {
  const { status } = response;
  const shaped = typeof body === "object" && body !== null ? (body as { message?: unknown; errors?: unknown }) : {};
  let message = typeof shaped.message === "string" ? shaped.message : `The server answered ${status}.`;
  const fields = typeof shaped.errors === "object" && shaped.errors !== null ? (shaped.errors as Record<string, string[]>) : {};
  const retryAfter = status === 429 ? retryAfterOf(response) : null;
  if (retryAfter !== null) {
    const reason = typeof shaped.message === "string" ? (/^[^.!?]*[.!?]/.exec(shaped.message)?.[0] ?? "") : "";
    message = `${reason.length > 0 && reason.length <= 120 ? reason : "Too many requests."} Try again in ${waitInWords(retryAfter)}.`;
  }
  return new ApiError(status, message, fields, retryAfter);
}
