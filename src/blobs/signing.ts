import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * URLs that the embedded blob store signs and later serves itself (the S3 adapter uses real SigV4
 * presigning instead). Everything that changes what the URL grants is inside the MAC, so a holder
 * can neither point it at another key or part, nor extend its life, nor swap the download name.
 */
export type SignedGrant = {
  method: "GET" | "PUT";
  key: string;
  uploadId?: string;
  partNumber?: number;
  /** Unix seconds after which the URL is refused. */
  expires: number;
  downloadName?: string;
  /** A part URL may fix the exact length of the part it accepts. */
  size?: number;
};

function mac(secret: string, grant: SignedGrant): Buffer {
  // Newline-separated fields: none of them can contain a newline (keys, upload ids and numbers are
  // restricted; the download name is length-prefixed), so two grants never share a canonical form.
  const name = grant.downloadName ?? "";
  const canonical = [
    "scribe-blob-v1",
    grant.method,
    grant.key,
    grant.uploadId ?? "",
    grant.partNumber === undefined ? "" : String(grant.partNumber),
    String(grant.expires),
    `${name.length}:${name}`,
    // Only present when bound, so URLs signed before this field existed keep their MAC.
    ...(grant.size === undefined ? [] : [`size:${grant.size}`]),
  ].join("\n");
  return createHmac("sha256", secret).update(canonical).digest();
}

/** The query parameters that carry a grant (`key` and `method` travel in the path and the verb). */
export function signedQuery(secret: string, grant: SignedGrant): URLSearchParams {
  const query = new URLSearchParams();
  if (grant.uploadId !== undefined) query.set("uploadId", grant.uploadId);
  if (grant.partNumber !== undefined) query.set("partNumber", String(grant.partNumber));
  query.set("expires", String(grant.expires));
  if (grant.downloadName !== undefined) query.set("name", grant.downloadName);
  if (grant.size !== undefined) query.set("size", String(grant.size));
  query.set("signature", mac(secret, grant).toString("base64url"));
  return query;
}

/**
 * The grant a request carries, or null when its signature is missing, malformed, tampered with or
 * expired. `nowMs` is a parameter so tests can move the clock.
 */
export function verifySignedQuery(secret: string, method: "GET" | "PUT", key: string, query: URLSearchParams, nowMs: number = Date.now()): SignedGrant | null {
  const expires = Number(query.get("expires"));
  if (!Number.isSafeInteger(expires) || Math.floor(nowMs / 1000) > expires) return null;
  const grant: SignedGrant = { method, key, expires };
  const uploadId = query.get("uploadId");
  if (uploadId !== null) grant.uploadId = uploadId;
  const partNumber = query.get("partNumber");
  if (partNumber !== null) {
    if (!/^[1-9][0-9]{0,4}$/.test(partNumber)) return null;
    grant.partNumber = Number(partNumber);
  }
  const name = query.get("name");
  if (name !== null) grant.downloadName = name;
  const size = query.get("size");
  if (size !== null) {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(size)) return null;
    grant.size = Number(size);
  }
  const given = Buffer.from(query.get("signature") ?? "", "base64url");
  const expected = mac(secret, grant);
  // timingSafeEqual throws on a length mismatch; the length of a MAC is no secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return grant;
}

/** Unix seconds `seconds` from now, the way S3 counts X-Amz-Expires. */
export function expiresAt(seconds: number, nowMs: number = Date.now()): number {
  return Math.floor(nowMs / 1000) + seconds;
}
