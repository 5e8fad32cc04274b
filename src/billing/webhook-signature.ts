import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed payment webhooks, in the scheme Stripe made familiar:
 *
 *   X-Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * The timestamp is inside the signed text, so a captured delivery cannot be replayed later with a
 * fresh `t`; deliveries older (or further in the future) than the tolerance are refused. Several
 * `v1=` entries are accepted so the sender can sign with an old and a new secret while rotating.
 */
export const signatureHeader = "x-sandbox-signature";
export const toleranceSeconds = 300;

export type SignatureCheck = { valid: true; timestamp: number } | { valid: false; reason: "missing" | "malformed" | "expired" | "mismatch" };

function digest(secret: string, timestamp: number, body: string): Buffer {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest();
}

export function signWebhook(secret: string, body: string, timestamp: number = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${digest(secret, timestamp, body).toString("hex")}`;
}

export function verifyWebhook(
  secret: string,
  body: string,
  header: string | null | undefined,
  nowSeconds: number = Math.floor(Date.now() / 1000),
  tolerance: number = toleranceSeconds,
): SignatureCheck {
  if (!header) return { valid: false, reason: "missing" };
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const [key, value, ...rest] = part.trim().split("=");
    if (!key || value === undefined || rest.length > 0) return { valid: false, reason: "malformed" };
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, "hex"));
  }
  if (timestamp === null || signatures.length === 0) return { valid: false, reason: "malformed" };
  if (Math.abs(nowSeconds - timestamp) > tolerance) return { valid: false, reason: "expired" };
  const expected = digest(secret, timestamp, body);
  // Compare every candidate in constant time; lengths are fixed (32 bytes) by the pattern above.
  const matches = signatures.some((candidate) => timingSafeEqual(candidate, expected));
  return matches ? { valid: true, timestamp } : { valid: false, reason: "mismatch" };
}
