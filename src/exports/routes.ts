import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { OpenAPIV3 } from "openapi-types";
import { fileResponse, jsonResponse } from "../http/openapi/responses.ts";
import { taskParams } from "../tasks/schemas.ts";
import { attachmentDisposition } from "../blobs/content-disposition.ts";
import { chunkStream, contentTypes, exportFormats } from "./formats/index.ts";
import type { Download, Exports } from "./service.ts";
import type { OriginOf } from "../http/request-origin.ts";

/** What a downloaded file can be (the media types without their parameters). */
const exportMediaTypes = [...new Set(Object.values(contentTypes).map((type) => type.split(";")[0]!))];

const readySchema: OpenAPIV3.SchemaObject = {
  type: "object",
  properties: { status: { type: "string", enum: ["ready"] }, url: { type: "string", format: "uri" }, expires_in: { type: "integer" } },
  required: ["status", "url", "expires_in"],
};

const unknownFormat = `The format must be one of ${exportFormats.join(", ")}.`;

const downloadParams = t.Object({
  id: taskParams.properties.id,
  format: t.Union(
    exportFormats.map((format) => t.Literal(format, { error: unknownFormat })),
    { error: unknownFormat, description: "txt, srt, vtt and csv are made on request; pdf and docx by the export worker." },
  ),
});

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
    async ({ params, caller, request, server, metadata }) => {
      const wantsJson = asksForJson(request.headers.get("accept"));
      const download = await exports.download(caller.userId, params.id, params.format, wantsJson, metadata, originOf({ request, server }));
      return answer(download);
    },
    {
      params: downloadParams,
      detail: {
        tags: ["Tasks"],
        security: [{ bearer: [] }],
        summary: "Export the transcript",
        responses: {
          200: {
            description: 'The file (txt, srt, vtt, csv, pdf, docx); for pdf and docx with `Accept: application/json`, `{status: "ready", url, expires_in}`.',
            content: { ...fileResponse("", exportMediaTypes).content, ...jsonResponse("", readySchema).content },
          },
          202: jsonResponse(
            "pdf or docx of the current transcript is being made: ask again after Retry-After.",
            { type: "object", properties: { status: { type: "string", enum: ["processing"] }, message: { type: "string" } }, required: ["status", "message"] },
            { "Retry-After": { description: "Seconds until it is worth asking again.", schema: { type: "integer" } } },
          ),
        },
        description:
          'txt, srt, vtt and csv: 200 with the file. pdf and docx: 200 with the file, or `{status: "ready", url}` (a signed URL valid 15 ' +
          'minutes) when `Accept` asks for JSON; 202 `{status: "processing", message}` while the export of the current transcript is being ' +
          "made. 409 when the task has no transcript yet; 422 for an unknown format.",
      },
    },
  );
}
