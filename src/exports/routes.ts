import { Elysia, t, type Static } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { OpenAPIV3 } from "openapi-types";
import { fileResponse, jsonResponse } from "../http/openapi/responses.ts";
import { taskParams } from "../tasks/schemas.ts";
import { attachmentDisposition } from "../blobs/content-disposition.ts";
import { chunkStream, contentTypes, exportFormats, subtitleFormats, type ExportFormat } from "./formats/index.ts";
import { cueLimitBounds, defaultCueLimits, type CueLimits } from "./formats/cue-limits.ts";
import { ValidationFailedError } from "../core/errors.ts";
import type { Download, Exports } from "./service.ts";
import type { OriginOf } from "../http/request-origin.ts";

/** What a downloaded file can be (the media types without their parameters). */
const exportMediaTypes = [...new Set(Object.values(contentTypes).map((type) => type.split(";")[0]!))];

const readySchema: OpenAPIV3.SchemaObject = {
  type: "object",
  properties: { status: { type: "string", enum: ["ready"] }, url: { type: "string", format: "uri" }, expires_in: { type: "integer" } },
  required: ["status", "url", "expires_in"],
};

const integer: OpenAPIV3.SchemaObject = { type: "integer" };
/** The `json` export (formats/json.ts): the transcript's segments, with the engine's timed words where it has them. */
const transcriptJsonSchema: OpenAPIV3.SchemaObject = {
  type: "object",
  properties: {
    segments: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: integer,
          start: integer,
          end: integer,
          text: { type: "string" },
          speaker: { type: "string", nullable: true },
          words: {
            type: "array",
            items: {
              type: "object",
              properties: { text: { type: "string" }, start: integer, end: integer, confidence: { type: "number", nullable: true } },
              required: ["text", "start", "end", "confidence"],
            },
          },
        },
        required: ["id", "start", "end", "text", "speaker"],
      },
    },
  },
  required: ["segments"],
};

const unknownFormat = `The format must be one of ${exportFormats.join(", ")}.`;

const downloadParams = t.Object({
  id: taskParams.properties.id,
  format: t.Union(
    exportFormats.map((format) => t.Literal(format, { error: unknownFormat })),
    { error: unknownFormat, description: "txt, srt, vtt, csv and json are made on request; pdf and docx by the export worker." },
  ),
});

const { maxLineLength, maxLines, maxCueSeconds } = cueLimitBounds;
const { maxLineLength: defaultLine, maxLines: defaultLines, maxCueSeconds: defaultSeconds } = defaultCueLimits;
const subtitlesOnly = "srt and vtt only; any other format refuses it (422).";

/** How srt and vtt cues are shaped (subtitle-cues.ts); each absent one takes its default. */
const downloadQuery = t.Object({
  max_line_length: t.Optional(
    t.Integer({
      ...maxLineLength,
      description: `Characters on a subtitle line, ${maxLineLength.minimum} to ${maxLineLength.maximum} (default ${defaultLine}); ${subtitlesOnly}`,
    }),
  ),
  max_lines: t.Optional(
    t.Integer({ ...maxLines, description: `Lines in a cue, ${maxLines.minimum} to ${maxLines.maximum} (default ${defaultLines}); ${subtitlesOnly}` }),
  ),
  max_cue_seconds: t.Optional(
    t.Number({
      ...maxCueSeconds,
      description: `A cue's longest time on screen in seconds, ${maxCueSeconds.minimum} to ${maxCueSeconds.maximum} (default ${defaultSeconds}); ${
        subtitlesOnly
      }`,
    }),
  ),
});
type DownloadQuery = Static<typeof downloadQuery>;

/** A parameter's name as the validation messages say it ("max lines"). */
const spoken = (name: string) => name.replace(/_/g, " ");
const limitNames = Object.keys(downloadQuery.properties) as (keyof DownloadQuery)[];

/**
 * The subtitle limits asked for, or undefined for the defaults; 422 keyed by the parameter when the format takes none,
 * or when it is given twice (the query's decoder would quietly keep one of the two).
 */
function cueLimitsOf(format: ExportFormat, query: DownloadQuery, url: string): CueLimits | undefined {
  const search = new URL(url).searchParams;
  const repeated = limitNames.filter((name) => search.getAll(name).length > 1);
  if (repeated.length > 0)
    throw new ValidationFailedError(Object.fromEntries(repeated.map((name) => [name, [`The ${spoken(name)} field may be given once.`]])));
  const given = limitNames.filter((name) => query[name] !== undefined);
  if (given.length === 0) return undefined;
  if (!subtitleFormats.includes(format)) {
    throw new ValidationFailedError(Object.fromEntries(given.map((name) => [name, [`The ${spoken(name)} field applies to srt and vtt only, not ${format}.`]])));
  }
  return {
    maxLineLength: query.max_line_length ?? defaultLine,
    maxLines: query.max_lines ?? defaultLines,
    maxCueSeconds: query.max_cue_seconds ?? defaultSeconds,
  };
}

/** A client that says it accepts JSON gets the JSON answer (ready + URL); any other gets the file. */
const asksForJson = (accept: string | null) => /\bapplication\/(?:[\w.+-]*\+)?json\b/i.test(accept ?? "");

function answer(download: Download): Response {
  switch (download.kind) {
    case "ready":
      return Response.json({ status: "ready", url: download.url, expires_in: download.expiresInSeconds });
    case "processing":
      return Response.json(
        { status: "processing", message: download.message },
        { status: 202, headers: { "retry-after": String(download.retryAfterSeconds), "cache-control": "no-store" } },
      );
    case "file": {
      const headers: Record<string, string> = {
        "content-type": download.contentType,
        "content-disposition": attachmentDisposition(download.fileName),
        "cache-control": "private, no-cache",
        "x-content-type-options": "nosniff",
      };
      if (download.size !== null) headers["content-length"] = String(download.size);
      const body = download.body instanceof ReadableStream ? download.body : chunkStream(download.body);
      return new Response(body, { headers });
    }
  }
}

/** Spec 4.2: `GET /api/tasks/{id}/download/{format}`. `originOf`: the address the caller reached us at, which a ready file's signed URL names. */
export function exportRoutes({ exports, authenticated, originOf }: { exports: Exports; authenticated: Authenticated; originOf: OriginOf }) {
  return new Elysia({ name: "export-routes" }).use(authenticated).get(
    "/api/tasks/:id/download/:format",
    async ({ params, query, caller, request, server, metadata }) => {
      const limits = cueLimitsOf(params.format, query, request.url);
      const wantsJson = asksForJson(request.headers.get("accept"));
      const download = await exports.download(caller.userId, params.id, params.format, wantsJson, metadata, originOf({ request, server }), limits);
      return answer(download);
    },
    {
      params: downloadParams,
      query: downloadQuery,
      detail: {
        tags: ["Tasks"],
        security: [{ bearer: [] }],
        summary: "Export the transcript",
        responses: {
          200: {
            description:
              'The file (txt, srt, vtt, csv, json, pdf, docx); for pdf and docx with `Accept: application/json`, `{status: "ready", url, expires_in}`.',
            content: { ...fileResponse("", exportMediaTypes).content, ...jsonResponse("", { oneOf: [readySchema, transcriptJsonSchema] }).content },
          },
          202: jsonResponse(
            "pdf or docx of the current transcript is being made: ask again after Retry-After.",
            { type: "object", properties: { status: { type: "string", enum: ["processing"] }, message: { type: "string" } }, required: ["status", "message"] },
            { "Retry-After": { description: "Seconds until it is worth asking again.", schema: { type: "integer" } } },
          ),
        },
        description:
          'txt, srt, vtt, csv and json: 200 with the file. pdf and docx: 200 with the file, or `{status: "ready", url}` (a signed URL valid ' +
          '15 minutes) when `Accept` asks for JSON; 202 `{status: "processing", message}` while the export of the current transcript is ' +
          "being made. srt and vtt cues are shaped for reading: split and joined on word times, at most `max_lines` lines of " +
          "`max_line_length` characters, 1 s to `max_cue_seconds` each, at most 17 characters a second where the speech allows, a new " +
          "cue at every change of speaker. 409 when the task has no transcript yet; 422 for an unknown format, a limit out of range, or " +
          "a limit on another format.",
      },
    },
  );
}
