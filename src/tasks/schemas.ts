import { t } from "elysia";
import { textInteger } from "../http/text-integer.ts";
import { Type } from "@sinclair/typebox";
import { segmentSchema, segmentsSchema, wholeNumber } from "./segments.ts";
import { segmentWordsView } from "./detail-include.ts";
import { nameText } from "../http/names.ts";
import { preparedOffThread } from "../http/prepared-members.ts";
import { everyOf, stringEnum } from "../http/openapi/string-enum.ts";
import { taskStatuses, type Disk } from "./events.ts";
import { engineNames, recognitionFields } from "./recognition-choice.ts";

/** The transcript bodies' integers are TypeBox's own, as a segment's are (segments.ts: why). */
const seconds = wholeNumber();
const taskId = t.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

const disks = everyOf<Disk>()(["objstore", "remote", "videolink"]);
/** Spec 2.1's export metadata: every format a task can be downloaded in, and those the export worker makes. */
export const allowedFormats = ["txt", "srt", "vtt", "csv", "json", "pdf", "docx"] as const;
export const heavyFormats = ["pdf", "docx"] as const satisfies readonly (typeof allowedFormats)[number][];
export const taskStatus = stringEnum(taskStatuses, { description: "pending, waiting, scribing, finished or failed." });
const disk = t.Nullable(stringEnum(disks));

/** A transcript over 1 MiB is checked, numbered and serialised on the JSON body thread (transcript-body.ts). */
const segmentsOffThread = { member: "segments", script: new URL("./transcript-body.ts", import.meta.url).href };

export const createTaskBody = preparedOffThread(
  t.Object({
    disk: stringEnum(disks, {
      description: "objstore: `path` is a storage path from an upload; remote: a direct file URL; videolink: a video page URL (paid plans).",
    }),
    name: nameText({ minLength: 1, maxLength: 255 }),
    path: t.String({ minLength: 1, maxLength: 2048, description: "Storage path, or the source URL for remote and videolink." }),
    file: t.Optional(nameText({ maxLength: 255 })),
    size: t.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_648 })),
    duration: t.Optional(seconds),
    cost: t.Optional(seconds),
    segments: t.Optional(segmentsSchema),
    speaker_diarization: t.Optional(t.Boolean({ description: "Label segments with speakers (speaker diarization)." })),
    ...recognitionFields,
  }),
  segmentsOffThread,
);

export const createdTask = t.Object({
  id: t.Integer(),
  name: t.String(),
  status: taskStatus,
  speaker_diarization: t.Boolean(),
  created_at: t.String(),
});

export const statusFilter = stringEnum(["all", ...taskStatuses], {
  documentedDefault: "all",
  description: "all (default), pending, waiting, scribing, finished or failed.",
});

export const listQuery = t.Object({
  status: t.Optional(statusFilter),
  // No control characters: a NUL cannot be part of a name, and MongoDB refuses it inside a $regex.
  search: t.Optional(
    t.String({
      maxLength: 255,
      pattern: "^[^\\u0000-\\u001f\\u007f]*$",
      description: "Part of the task name, case-insensitive; control characters are refused (422).",
    }),
  ),
  folder: t.Optional(t.String({ maxLength: 255, description: "A folder name, or `Uncategorized` for tasks in no folder." })),
  // Ranges are checked in Tasks.list: Elysia's query decoder reports a range error without the field's
  // name (`errors.property`), and spec 7 wants errors keyed by field. The defaults are Tasks.list's, documented
  // only (normalize-schema.ts): a default Elysia filled in would be decoded on every request.
  page: t.Optional(textInteger({ documentedDefault: 1, description: "Page number, from 1." })),
  per_page: t.Optional(textInteger({ documentedDefault: 25, description: "Tasks per page, 1 to 100." })),
});

// No range on the path's id: Elysia's decoder reports a range error in a path or query without naming the
// field (`errors.property`), and an integer that is no task of the caller's (0, negative, huge) is simply
// not found: 404, like any other such id. Not an integer at all is 422 on `id`.
export const taskParams = t.Object({ id: t.Integer({ description: "Task id" }) });

/** The same, for the most asked read (a task's detail): the id is checked as text and read by the route (text-integer.ts). */
export const taskParamsAsText = t.Object({ id: textInteger({ description: "Task id" }) });

/**
 * The query of a signed audio URL (`/audio/signed`, the share page's `/audio`): ours are a few dozen characters,
 * so a far longer value is refused (422) before any signature is computed over it.
 */
export const signedAudioQuery = t.Object({
  user: t.Optional(t.String({ maxLength: 64 })),
  expires: t.Optional(t.String({ maxLength: 64 })),
  signature: t.Optional(t.String({ maxLength: 256 })),
});

export const updateTaskBody = preparedOffThread(
  t.Object({
    name: t.Optional(nameText({ minLength: 1, maxLength: 255 })),
    folder: t.Optional(t.Nullable(nameText({ minLength: 1, maxLength: 255 }))),
    duration: t.Optional(seconds),
    cost: t.Optional(seconds),
    segments: t.Optional(segmentsSchema),
    text: t.Optional(t.String({ maxLength: 10_000_000, description: "The whole transcript, one line per segment." })),
    quality: t.Optional(Type.Integer({ minimum: 0, maximum: 5 })),
    index: t.Optional(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 })),
  }),
  segmentsOffThread,
);

export const idsBody = t.Object({ ids: t.Array(taskId, { minItems: 1, maxItems: 1000 }) });
export const moveBody = t.Object({
  ids: t.Array(taskId, { minItems: 1, maxItems: 1000 }),
  folder: nameText({ minLength: 1, maxLength: 255, description: "A folder name, or `Uncategorized` to take the tasks out of their folders." }),
});

const segmentView = t.Object({
  id: t.Integer(),
  start: t.Integer(),
  end: t.Integer(),
  text: t.String(),
  speaker: t.Nullable(t.String()),
  tokens: t.Nullable(t.Array(t.String())),
  words: segmentWordsView,
});

export const taskListItemSchema = t.Object({
  id: t.Integer(),
  name: t.String(),
  file: t.String(),
  disk,
  size: t.Nullable(t.Integer()),
  duration: t.Integer(),
  cost: t.Nullable(t.Integer()),
  status: taskStatus,
  attempts: t.Integer(),
  quality: t.Nullable(t.Integer()),
  folder: t.Nullable(t.String()),
  created_at: t.String(),
});

export const taskListSchema = t.Object({
  data: t.Array(taskListItemSchema),
  current_page: t.Integer(),
  last_page: t.Integer(),
  per_page: t.Integer(),
  total: t.Integer(),
});

export const taskDetailSchema = t.Object({
  id: t.Integer(),
  name: t.String(),
  file: t.String(),
  path: t.String(),
  disk,
  size: t.Nullable(t.Integer()),
  duration: t.Integer(),
  cost: t.Nullable(t.Integer()),
  status: taskStatus,
  attempts: t.Integer(),
  quality: t.Nullable(t.Integer()),
  created_at: t.String(),
  updated_at: t.String(),
  summary: t.Nullable(t.String()),
  mindmap: t.Nullable(t.String()),
  folder: t.Nullable(t.String()),
  tags: t.Array(t.String()),
  url: t.Nullable(t.String()),
  segments: t.Nullable(t.Array(segmentView)),
  export: t.Object({
    allowed_formats: t.Array(stringEnum(allowedFormats)),
    heavy_formats: t.Array(stringEnum(heavyFormats)),
    version: t.String(),
  }),
  speaker_diarization: t.Boolean(),
  index: t.Nullable(t.Integer()),
  failure_reason: t.Nullable(t.String({ description: "Why the task failed (failed tasks only)." })),
  summary_outdated: t.Boolean({
    description:
      "Beyond the spec: true while `summary` and `mindmap` were made from an older transcript than the current one (it was edited since). " +
      "They are made again once the edits settle (SUMMARY_REFRESH_AFTER_EDIT_SECONDS after the last one), or by refresh-summary.",
  }),
  summary_failure: t.Nullable(
    t.String({ description: "Beyond the spec: why the last attempt to make the summary and mind map failed; null once one succeeds." }),
  ),
  engine: t.Nullable(stringEnum(engineNames), { description: "Beyond the spec: the engine the task asked for; null: the service's default." }),
  language: t.Nullable(t.String(), { description: "Beyond the spec: the language the task asked for (ISO 639-1); null: the engine's own, or detected." }),
  vocabulary: t.Array(t.String(), { description: "Beyond the spec: the words and phrases the task gave the engine (trimmed, without repeats)." }),
  origin: t.Nullable(stringEnum(["live"]), {
    description:
      "Beyond the spec: where the task began when not from a file or link. `live`: a live transcription session (`GET /v1/realtime`) " +
      "kept as a task, its transcript the one recognised while it was spoken, its audio the session's recording.",
  }),
});

export const messageSchema = t.Object({ message: t.String() });
export { segmentSchema };
