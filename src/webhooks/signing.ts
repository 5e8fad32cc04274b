import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks' symmetric scheme: the secret is `whsec_` and base64 of random bytes (24 to 64; we
 * make 32), the key is those bytes, and the signature is `v1,` and base64 of HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export const secretPrefix = "whsec_";

export function newSigningSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString("base64")}`;
}

export function signature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(secretPrefix.length), "base64");
  return `v1,${createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** The headers of one attempt: the id stays the same across retries, the timestamp is the attempt's own. */
export function webhookHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Scribe webhooks",
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature(secret, messageId, timestamp, body),
  };
}

/** A message id for one event to one endpoint: the same however often the event is delivered to the worker, and free of '.' as the spec asks. */
export function messageIdFor(causeEventId: string, endpointId: string): string {
  return `msg_${new Bun.CryptoHasher("sha256").update(`${causeEventId}:${endpointId}`).digest("hex").slice(0, 32)}`;
}
