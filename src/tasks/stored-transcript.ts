import type { Segment } from "./segments.ts";

/**
 * A transcript in the form it is stored in: its JSON's bytes, their SHA-256 (its name) and how many segments it
 * holds. Apart from the store (transcripts.ts), with no dependencies: the JSON body thread makes it too
 * (transcript-body.ts), and loads only what this imports.
 */
export type StoredTranscript = { bytes: Uint8Array; sha256: string; segments: number };

export const sha256Hex = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** The stored form of `segments`; its own buffer (not a pooled one), so a thread can hand it over whole. */
export function storedTranscript(segments: readonly Segment[]): StoredTranscript {
  const bytes = new TextEncoder().encode(JSON.stringify(segments));
  return { bytes, sha256: sha256Hex(bytes), segments: segments.length };
}

/** The segments in a stored transcript's bytes (checked against its hash, where that is needed, by the caller). */
export const segmentsInBytes = (bytes: Uint8Array): Segment[] => JSON.parse(new TextDecoder().decode(bytes)) as Segment[];

/**
 * What the body thread made of a request's segments (undefined: it made nothing), checked for its shape, since it
 * crossed a thread boundary. Anything else is a fault of ours: the body has lost its segments by then, and going on
 * would create a task without its transcript, or answer an edit that changed nothing.
 */
export function storedTranscriptFrom(value: unknown): StoredTranscript | undefined {
  if (value === undefined) return undefined;
  const { bytes, sha256, segments } = (typeof value === "object" && value !== null ? value : {}) as Partial<StoredTranscript>;
  if (bytes instanceof Uint8Array && typeof sha256 === "string" && typeof segments === "number") return { bytes, sha256, segments };
  // An unexpected throw: the spec's JSON 500 with a correlation id and an error line in the log.
  throw new Error("the body thread handed back segments in a form the service does not know");
}
