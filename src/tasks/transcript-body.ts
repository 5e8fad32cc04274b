import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { PrepareMember } from "../http/prepared-members.ts";
import { normalizeSegments, segmentErrors, segmentsSchema, type SegmentInput } from "./segments.ts";
import { storedTranscript } from "./stored-transcript.ts";

/**
 * Runs on the JSON body thread (src/http/prepared-members.ts) for a task created or updated with a transcript over 1 MiB:
 * the segments checked as the route's schema and the service check them, numbered, serialised and hashed there, so
 * the main thread stores the bytes it is handed and never holds the segments. Anything wrong with them: declined,
 * and the main thread validates the body as it would any other, with the same answers.
 */
const segmentsCheck = TypeCompiler.Compile(segmentsSchema);

export const prepareMember: PrepareMember = (value) => {
  if (!segmentsCheck.Check(value)) return null;
  const segments = value as SegmentInput[];
  if (Object.keys(segmentErrors(segments)).length > 0) return null;
  const stored = storedTranscript(normalizeSegments(segments));
  return { prepared: stored, transfer: [stored.bytes.buffer as ArrayBuffer] };
};
