import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { isOfferKey, type OfferKey } from "./catalogue.ts";

/**
 * A checkout reference ties a payment back to the account and offer it was opened for, without a
 * table of pending checkouts: `<base64url JSON>.<base64url HMAC-SHA256>` signed with a key derived
 * from the service secret (SIGNING_SECRET, or the one kept under DATA_DIR). The webhook trusts the
 * account and offer named here, never what a payload claims on its own. Being URL-safe, it also
 * names the sandbox's checkout page.
 */
export type CheckoutReference = { userId: number; offer: OfferKey; nonce: string; expiresAt: number };

type Payload = { v: 1; u: number; o: string; n: string; x: number };

/** Keys for different jobs are derived from the one secret, so one leaked purpose-key exposes no other. */
export function deriveKey(secret: string, purpose: string): string {
  return createHmac("sha256", secret).update(`scribe:${purpose}`).digest("hex");
}

const mac = (key: string, payload: string) => createHmac("sha256", key).update(payload).digest();

export function signReference(key: string, reference: CheckoutReference): string {
  const payload: Payload = { v: 1, u: reference.userId, o: reference.offer, n: reference.nonce, x: reference.expiresAt };
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${encoded}.${mac(key, encoded).toString("base64url")}`;
}

export function newReference(userId: number, offer: OfferKey, expiresAt: Date): CheckoutReference {
  return { userId, offer, nonce: randomBytes(9).toString("base64url"), expiresAt: Math.floor(expiresAt.getTime() / 1000) };
}

/** The reference, when its signature holds (expired or not: callers decide whether expiry matters). */
export function readReference(key: string, token: string): CheckoutReference | null {
  const match = /^([A-Za-z0-9_-]{1,512})\.([A-Za-z0-9_-]{43})$/.exec(token);
  const encoded = match?.[1];
  const signature = match?.[2];
  if (encoded === undefined || signature === undefined) return null;
  // Compared as text, not decoded bytes: base64url decoding forgives the last character's spare bits,
  // and one reference must have exactly one spelling (webhooks are de-duplicated by it).
  const given = Buffer.from(signature);
  const expected = Buffer.from(mac(key, encoded).toString("base64url"));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const payload = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8")) as Partial<Payload>;
    if (payload.v !== 1 || !Number.isInteger(payload.u) || typeof payload.o !== "string" || !isOfferKey(payload.o)) return null;
    if (typeof payload.n !== "string" || !Number.isInteger(payload.x)) return null;
    return { userId: payload.u!, offer: payload.o, nonce: payload.n, expiresAt: payload.x! };
  } catch {
    return null;
  }
}

export function isExpired(reference: CheckoutReference, now: Date): boolean {
  return reference.expiresAt * 1000 <= now.getTime();
}
