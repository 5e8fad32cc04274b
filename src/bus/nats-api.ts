/** The JetStream API answers the NATS bus tells apart, by their error codes (nats-server's errors.json). */
import { NatsError } from "nats";

export const jsError = {
  consumerNotFound: 10014,
  streamNotFound: 10059,
  /** "stream name already in use with a different configuration". */
  streamNameInUse: 10058,
  /**
   * "consumer already exists" with a different configuration: servers before 2.10 update a durable in place on
   * create (10013 aside); 2.10+ answer 10148 instead, so we update explicitly.
   */
  consumerExists: [10013, 10148] as readonly number[],
  /** A store refusal; with discard-new this is "maximum bytes exceeded" (or messages): the stream is full. */
  storeFailed: 10077,
} as const;

export function apiErrorCode(error: unknown): number | undefined {
  return error instanceof NatsError ? error.api_error?.err_code : undefined;
}

/** Whether the stream or consumer an answer is about does not exist (any more). */
export function isNotFound(error: unknown): boolean {
  const code = apiErrorCode(error);
  return code === jsError.consumerNotFound || code === jsError.streamNotFound;
}

/** The server's words for a refusal: nats.js puts only the status ("503") in the message of some. */
export function apiErrorDescription(error: unknown): string {
  if (error instanceof NatsError) return error.api_error?.description ?? error.message;
  return error instanceof Error ? error.message : String(error);
}
