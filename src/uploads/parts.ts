import type { UploadedPart } from "../blobs/port.ts";
import type { UploadSession } from "./events.ts";

const MiB = 1024 * 1024;

/** S3's rules: every part but the last at least 5 MiB, at most 5 GiB, at most 10,000 parts. */
export const minPartBytes = 8 * MiB;
/**
 * At most this many parts a file, so a whole upload (sign, every sign-part, complete) fits in the
 * default rate limit of 10 requests a minute; a 2 GiB file goes up in 8 parts of 256 MiB.
 */
export const maxPartsPerUpload = 8;

/** Part size (whole MiB, at least 8 MiB) and count for a file of `size` bytes. */
export function partPlan(size: number): { partSize: number; partCount: number } {
  const partSize = Math.max(minPartBytes, Math.ceil(size / maxPartsPerUpload / MiB) * MiB);
  return { partSize, partCount: Math.max(1, Math.ceil(size / partSize)) };
}

/** The size part `partNumber` (1-based) must have. */
export function expectedPartSize(session: Pick<UploadSession, "size" | "partSize" | "partCount">, partNumber: number): number {
  return partNumber < session.partCount ? session.partSize : session.size - session.partSize * (session.partCount - 1);
}

/**
 * What is wrong with the parts received before a complete: a missing part, one of the wrong size,
 * or a part beyond the plan. Null when they add up to the signed file exactly.
 */
export function partProblem(session: Pick<UploadSession, "size" | "partSize" | "partCount">, parts: UploadedPart[]): string | null {
  const byNumber = new Map(parts.map((p) => [p.partNumber, p]));
  const missing: number[] = [];
  for (let n = 1; n <= session.partCount; n++) if (!byNumber.has(n)) missing.push(n);
  if (missing.length > 0) {
    const shown = missing.slice(0, 10).join(", ") + (missing.length > 10 ? `, … (${missing.length} in all)` : "");
    return `Not all parts have arrived: part${missing.length === 1 ? "" : "s"} ${shown} of ${session.partCount} missing.`;
  }
  const extra = parts.find((p) => p.partNumber > session.partCount);
  if (extra) return `Part ${extra.partNumber} is beyond the ${session.partCount} parts of this upload.`;
  for (const part of parts) {
    const expected = expectedPartSize(session, part.partNumber);
    if (part.size !== expected) return `Part ${part.partNumber} has ${part.size} bytes; it must have ${expected}.`;
  }
  return null;
}
