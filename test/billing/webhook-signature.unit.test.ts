import { describe, expect, test } from "bun:test";
import { signWebhook, verifyWebhook } from "../../src/billing/webhook-signature.ts";
import { deriveKey, isExpired, newReference, readReference, signReference } from "../../src/billing/checkout-reference.ts";

const secret = "whsec_test";
const body = JSON.stringify({ id: "evt_1", type: "checkout.completed", data: { reference: "r" } });
const t = 1_800_000_000;

describe("webhook signature", () => {
  test("a signature made with the secret verifies", () => {
    expect(verifyWebhook(secret, body, signWebhook(secret, body, t), t + 10)).toEqual({ valid: true, timestamp: t });
  });

  test("another secret, another body or a moved timestamp do not", () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhook("other", body, header, t)).toEqual({ valid: false, reason: "mismatch" });
    expect(verifyWebhook(secret, body.replace("evt_1", "evt_2"), header, t)).toEqual({ valid: false, reason: "mismatch" });
    // Replaying the old digest under a fresh timestamp fails: the timestamp is signed too.
    expect(verifyWebhook(secret, body, header.replace(`t=${t}`, `t=${t + 100}`), t + 100)).toEqual({ valid: false, reason: "mismatch" });
  });

  test("older (or further ahead) than five minutes is refused", () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhook(secret, body, header, t + 300).valid).toBe(true);
    expect(verifyWebhook(secret, body, header, t + 301)).toEqual({ valid: false, reason: "expired" });
    expect(verifyWebhook(secret, body, header, t - 301)).toEqual({ valid: false, reason: "expired" });
  });

  test("missing and malformed headers are told apart from wrong ones", () => {
    expect(verifyWebhook(secret, body, null, t)).toEqual({ valid: false, reason: "missing" });
    for (const header of ["garbage", `t=${t}`, "v1=abcd", `t=x,v1=${"0".repeat(64)}`, `t=${t},v1=short`, `t=${t},v1=${"0".repeat(64)}=`]) {
      expect(verifyWebhook(secret, body, header, t)).toEqual({ valid: false, reason: "malformed" });
    }
  });

  test("any one of several v1 signatures may match (secret rotation)", () => {
    const good = signWebhook(secret, body, t).split(",")[1]!;
    expect(verifyWebhook(secret, body, `t=${t},v1=${"ab".repeat(32)},${good}`, t).valid).toBe(true);
  });
});

describe("checkout reference", () => {
  const key = deriveKey("service-secret", "checkout-reference");
  const expiresAt = new Date("2026-03-04T11:00:00.000Z");

  test("round-trips the account and offer", () => {
    const reference = newReference(42, "month", expiresAt);
    const token = signReference(key, reference);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(readReference(key, token)).toEqual(reference);
    expect(isExpired(reference, new Date("2026-03-04T10:59:59.000Z"))).toBe(false);
    expect(isExpired(reference, expiresAt)).toBe(true);
  });

  test("a forged or tampered reference is unknown", () => {
    const token = signReference(key, newReference(42, "month", expiresAt));
    const [payload, mac] = token.split(".") as [string, string];
    const otherUser = Buffer.from(Buffer.from(payload, "base64url").toString().replace('"u":42', '"u":43')).toString("base64url");
    expect(readReference(key, `${otherUser}.${mac}`)).toBeNull();
    expect(readReference(deriveKey("another-secret", "checkout-reference"), token)).toBeNull();
    expect(readReference(key, "not-a-reference")).toBeNull();
    // One spelling only: a last character that decodes to the same bytes is still another reference.
    // (a canonical last character has its two spare bits clear; the next one in the alphabet sets one).
    const alias = `${mac.slice(0, -1)}${String.fromCharCode(mac.charCodeAt(42) + 1)}`;
    expect(Buffer.from(alias, "base64url")).toEqual(Buffer.from(mac, "base64url"));
    expect(readReference(key, `${payload}.${alias}`)).toBeNull();
  });

  test("keys for different purposes differ", () => {
    expect(deriveKey("s", "checkout-reference")).not.toBe(deriveKey("s", "payment-webhook"));
  });
});
