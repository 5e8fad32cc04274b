/**
 * One personal field of an event, encrypted with its scope's data key (crypto-shredding, ../shared/DESIGN.md
 * "Personal data in an immutable log"). Stored form: `enc:v1:<scope>:<base64url iv>:<base64url ciphertext+tag>`,
 * the plaintext being `JSON.stringify(value)` so that strings, arrays and objects all encrypt alike.
 *
 * AES-256-GCM through Web Crypto, a fresh 12-byte IV per field (random IVs are safe for 2^32 fields per key; a
 * key serves one task or one account). The additional data `<scope>|<event type>|<field path>` binds the
 * ciphertext to its place: copied into another field, event type or scope, it no longer decrypts.
 *
 * Keys arrive as CryptoKey objects (imported once by the key store and cached), so a call costs one
 * encrypt or decrypt and no key import.
 */

const PREFIX = "enc:v1:";
const IV_BYTES = 12;
/** AES-GCM's tag, appended to the ciphertext by Web Crypto. */
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const ALGORITHM = "AES-GCM";
/** base64url's alphabet, unpadded (Buffer writes it so): anything else in a stored field is damage. */
const base64url = /^[A-Za-z0-9_-]+$/;
/** Scopes are `task-<id>` or `account-<id>`; a colon or bar would make the stored form or the additional data ambiguous. */
const validScope = /^[A-Za-z0-9_-]+$/;

/** Where a field sits: what its additional data binds it to. */
export type FieldPlace = { scope: string; eventType: string; path: string };

/**
 * A stored field that does not decrypt with the key given: another key (the wrong scope's, or a key remade after
 * a loss), another place (scope, event type or path), or altered text. The message names the place, never the value.
 */
export class FieldDecryptionError extends Error {
  constructor(
    readonly place: FieldPlace,
    reason: string,
  ) {
    super(`the encrypted field ${place.path} of a ${place.eventType} event (scope ${place.scope}) does not decrypt: ${reason}`);
    this.name = "FieldDecryptionError";
  }
}

/** A stored field's parts; null when `value` is not in the stored form. */
export type EncryptedParts = { scope: string; iv: string; ciphertext: string };

/** Whether `value` is a field in the encrypted stored form (a clear field, written before encryption, is not). */
export function isEncryptedField(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(PREFIX);
}

export function encryptedParts(value: unknown): EncryptedParts | null {
  if (!isEncryptedField(value)) return null;
  const parts = value.slice(PREFIX.length).split(":");
  if (parts.length !== 3) return null;
  const [scope, iv, ciphertext] = parts as [string, string, string];
  if (!validScope.test(scope) || !base64url.test(iv) || !base64url.test(ciphertext)) return null;
  return { scope, iv, ciphertext };
}

/** The scope whose key a stored field needs, without decrypting it; null when `value` is not an encrypted field. */
export function scopeOfEncryptedField(value: unknown): string | null {
  return encryptedParts(value)?.scope ?? null;
}

function additionalData(place: FieldPlace): Uint8Array {
  return new TextEncoder().encode(`${place.scope}|${place.eventType}|${place.path}`);
}

/** Encrypts `value` (anything JSON.stringify writes) for `place`, with the key of `place.scope`. */
export async function encryptField(value: unknown, key: CryptoKey, place: FieldPlace): Promise<string> {
  if (!validScope.test(place.scope)) throw new TypeError(`data key scope ${JSON.stringify(place.scope)}: letters, digits, - and _ only`);
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`${place.path} of ${place.eventType}: ${typeof value} has no JSON form to encrypt`);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt({ name: ALGORITHM, iv, additionalData: additionalData(place) }, key, new TextEncoder().encode(json));
  return `${PREFIX}${place.scope}:${Buffer.from(iv).toString("base64url")}:${Buffer.from(sealed).toString("base64url")}`;
}

/**
 * The value `stored` holds. Throws FieldDecryptionError when it is not in the stored form, names another scope,
 * or fails authentication (another key, another place, altered text).
 */
export async function decryptField(stored: string, key: CryptoKey, place: FieldPlace): Promise<unknown> {
  const parts = encryptedParts(stored);
  if (!parts) throw new FieldDecryptionError(place, "it is not in the form enc:v1:<scope>:<iv>:<ciphertext>");
  if (parts.scope !== place.scope) throw new FieldDecryptionError(place, `it was encrypted for scope ${parts.scope}`);
  const iv = Buffer.from(parts.iv, "base64url");
  const sealed = Buffer.from(parts.ciphertext, "base64url");
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) throw new FieldDecryptionError(place, "its IV or ciphertext is truncated");
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: ALGORITHM, iv, additionalData: additionalData(place) }, key, sealed);
  } catch {
    // Web Crypto says only "OperationError": GCM cannot tell a wrong key from altered text or another place.
    throw new FieldDecryptionError(place, "wrong key, another place, or altered text (authentication failed)");
  }
  return JSON.parse(new TextDecoder().decode(plain));
}

/** 32 fresh random bytes: a new data key, as the key store keeps it. */
export function newRawDataKey(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(KEY_BYTES));
}

/** A data key's CryptoKey, not extractable: once imported, its bytes cannot be read back out of the process's objects. */
export async function importDataKey(raw: Uint8Array): Promise<CryptoKey> {
  if (raw.length !== KEY_BYTES) throw new TypeError(`a data key is ${KEY_BYTES} bytes, not ${raw.length}`);
  return crypto.subtle.importKey("raw", raw, { name: ALGORITHM }, false, ["encrypt", "decrypt"]);
}
