import { timingSafeEqual } from "node:crypto";

/**
 * argon2id at OWASP's minimum recommendation (19 MiB, 2 passes, 1 lane): a login costs tens of
 * milliseconds on our 2-core machines instead of the hundreds Bun's default (64 MiB) would.
 */
export const passwordHashing = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, passwordHashing);
}

/** Verifies against a throwaway hash when there is no account, so timing does not tell which part was wrong. */
const decoyHash = Bun.password.hash("decoy password that matches nothing", passwordHashing);
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    await Bun.password.verify(password, await decoyHash);
    return false;
  }
  return Bun.password.verify(password, hash);
}

function randomPart(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** Tokens and keys are random (256 bits) and stored only as their SHA-256: a leaked database holds no usable secret. */
export function hashSecret(secret: string): string {
  return Bun.SHA256.hash(secret, "hex");
}

export function newAccessToken(): { tokenId: string; token: string; tokenHash: string } {
  const token = `scr_${randomPart(32)}`;
  return { tokenId: crypto.randomUUID(), token, tokenHash: hashSecret(token) };
}

/** A web app session's secret (`scs_…`): it travels only in the HttpOnly session cookie. */
export function newSessionSecret(): { sessionId: string; secret: string; sessionHash: string } {
  const secret = `scs_${randomPart(32)}`;
  return { sessionId: crypto.randomUUID(), secret, sessionHash: hashSecret(secret) };
}

/** What newSessionSecret makes: anything else in the cookie is refused without a lookup. */
export const sessionSecretPattern = /^scs_[A-Za-z0-9_-]{43}$/;

export function newApiKey(): { keyId: string; key: string; keyHash: string; prefix: string } {
  const key = `sk_${randomPart(32)}`;
  return { keyId: crypto.randomUUID(), key, keyHash: hashSecret(key), prefix: key.slice(0, 10) };
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
