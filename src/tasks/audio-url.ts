import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed URLs of a task's audio, for `<audio>` and `<video>` elements: a media element cannot send an
 * Authorization header, and feeding it from an authenticated fetch would download the whole file before
 * it plays or seeks. The URL stays on the API's own origin (S3's presigned URLs would not, and the web
 * app's Content-Security-Policy allows media from `'self'` only) and is served with Range like `/audio`.
 *
 * It grants one task's audio to whoever holds it, until it expires: the owner and the task are inside the
 * MAC, so it can point at nothing else, and the route still checks that the signer owns the task.
 */
export type AudioGrant = { userId: number; taskId: number; expires: number };

/**
 * Hours, because a media element keeps asking for ranges while someone listens and seeks; a URL that
 * expired mid-session makes the player fail. It is a read of one's own file, like a download link.
 */
export const audioUrlLifetimeSeconds = 6 * 3600;

const mac = (key: string, grant: AudioGrant) =>
  createHmac("sha256", key).update(`scribe-audio-v1\n${grant.userId}\n${grant.taskId}\n${grant.expires}`).digest();

/** The query string (without `?`) that grants the task's audio until `audioUrlLifetimeSeconds` from now. */
export function signAudioQuery(key: string, userId: number, taskId: number, nowMs: number = Date.now()): string {
  const grant = { userId, taskId, expires: Math.floor(nowMs / 1000) + audioUrlLifetimeSeconds };
  return new URLSearchParams({ user: String(userId), expires: String(grant.expires), signature: mac(key, grant).toString("base64url") }).toString();
}

/** The grant a request for the task's audio carries, or null when it is forged, tampered with, for another task or expired. */
export function verifyAudioQuery(
  key: string,
  taskId: number,
  query: { user?: string; expires?: string; signature?: string },
  nowMs: number = Date.now(),
): AudioGrant | null {
  const userId = Number(query.user);
  const expires = Number(query.expires);
  if (!/^[1-9][0-9]{0,15}$/.test(query.user ?? "") || !Number.isSafeInteger(userId)) return null;
  if (!/^[0-9]{1,16}$/.test(query.expires ?? "") || Math.floor(nowMs / 1000) > expires) return null;
  const grant = { userId, taskId, expires };
  const given = Buffer.from(query.signature ?? "", "base64url");
  const expected = mac(key, grant);
  // timingSafeEqual throws on a length mismatch; the length of a MAC is no secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return grant;
}

/**
 * The share page's URL of a task's audio (`GET /share/tasks/{id}/audio`): a MAC over the task and the expiry only,
 * so the page does not show the owner's user id, under its own label, so it cannot pass for an owner's URL or the
 * other way round. It is not enough by itself: the route serves it only while the task is still shared, so stopping
 * sharing stops playback at once (sharing again makes an unexpired one good again).
 */
const shareMac = (key: string, taskId: number, expires: number) => createHmac("sha256", key).update(`scribe-share-audio-v1\n${taskId}\n${expires}`).digest();

/** The share page's query string (without `?`) for the task's audio until `audioUrlLifetimeSeconds` from now. */
export function signShareAudioQuery(key: string, taskId: number, nowMs: number = Date.now()): string {
  const expires = Math.floor(nowMs / 1000) + audioUrlLifetimeSeconds;
  return new URLSearchParams({ expires: String(expires), signature: shareMac(key, taskId, expires).toString("base64url") }).toString();
}

/** Whether a share-page query for the task's audio is genuine and unexpired (whether the task is still shared is the route's to check). */
export function verifyShareAudioQuery(key: string, taskId: number, query: { expires?: string; signature?: string }, nowMs: number = Date.now()): boolean {
  const expires = Number(query.expires);
  if (!/^[0-9]{1,16}$/.test(query.expires ?? "") || Math.floor(nowMs / 1000) > expires) return false;
  const given = Buffer.from(query.signature ?? "", "base64url");
  const expected = shareMac(key, taskId, expires);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
