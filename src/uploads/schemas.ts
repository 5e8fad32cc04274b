import { nameText } from "../http/names.ts";
import { t } from "elysia";
import { maxUploadBytes } from "./events.ts";
import { supportedExtensions } from "../media/formats.ts";
import { recognitionFields } from "../tasks/recognition-choice.ts";

const formats = supportedExtensions.join(", ");
const size = t.Integer({ minimum: 1, maximum: maxUploadBytes, description: `Bytes, 1 to ${maxUploadBytes}.` });
const path = t.String({ minLength: 1, maxLength: 2048, description: "The `path` sign returned." });
const uploadId = t.String({ minLength: 1, maxLength: 2048, description: "The `upload_id` sign returned." });

export const signBody = t.Object({
  file: nameText({ minLength: 1, maxLength: 255, description: `File name; its extension must be a supported format: ${formats}.` }),
  content_type: t.String({ minLength: 1, maxLength: 255, description: "MIME type; must go with the file's extension (see GET /api/uploads/formats)." }),
  size,
  duration: t.Optional(t.Integer({ minimum: 0, maximum: 2_147_483_647, description: "Audio duration in seconds, when known." })),
});

export const sessionSchema = t.Object({
  path: t.String({ description: "Storage path (blob key) of the file; the task's `path`." }),
  upload_id: t.String(),
  part_size: t.Integer({ description: "Bytes of every part but the last (at least 8 MiB)." }),
  part_count: t.Integer({ description: "Number of parts (at most 8)." }),
  expires_at: t.String({ description: "Parts and complete are refused after this (24 hours after sign)." }),
});

export const signPartBody = t.Object({
  path,
  upload_id: uploadId,
  part_number: t.Integer({ minimum: 1, maximum: 10_000, description: "1 to 10000, and at most `part_count`." }),
});

export const signedPartSchema = t.Object({
  url: t.String({ description: "PUT the part's bytes here (exactly its size: part_size, or the rest for the last part)." }),
  headers: t.Record(t.String(), t.String(), { description: "Headers to send with the PUT." }),
  expires_at: t.String({ description: "The URL is refused after this (at most an hour, never past the session)." }),
});

export const completeBody = t.Object({
  path,
  upload_id: uploadId,
  original_name: nameText({ minLength: 1, maxLength: 255, description: "File name, as signed (a supported format)." }),
  content_type: t.String({ minLength: 1, maxLength: 255, description: "As signed." }),
  size,
  name: t.Optional(nameText({ minLength: 1, maxLength: 255, description: "Task name; defaults to the file name without its extension." })),
  duration: t.Optional(t.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  speaker_diarization: t.Optional(t.Boolean()),
  ...recognitionFields,
});

export const completedSchema = t.Object({
  message: t.String(),
  task: t.Object({ id: t.Integer(), name: t.String(), path: t.String(), size: t.Integer(), status: t.Literal("pending"), speaker_diarization: t.Boolean() }),
});

export const abortBody = t.Object({ path, upload_id: uploadId });

export const formatsSchema = t.Object({
  formats: t.Array(t.Object({ extension: t.String(), content_types: t.Array(t.String()) })),
  max_size: t.Integer(),
});
