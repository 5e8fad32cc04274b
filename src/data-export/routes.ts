import { Elysia } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import { attachmentDisposition } from "../blobs/content-disposition.ts";
import { fileResponse, jsonResponse } from "../http/openapi/responses.ts";
import { busyMessage, type DataExports } from "./service.ts";

const error = { $ref: "#/components/schemas/Error" };

/** What the operation answers, for the OpenAPI document (a zip is no JSON schema: described here). */
const responses = {
  200: fileResponse("The zip, streamed as it is made (no Content-Length). README.txt inside it says what each file is.", ["application/zip"], {
    "Content-Disposition": { description: '`attachment; filename="scribe-data-<YYYY-MM-DD>.zip"` (the UTC date).', schema: { type: "string" } },
  }),
  401: jsonResponse("Not authenticated: the token, API key or session cookie is missing, unknown, expired or revoked.", error),
  429: jsonResponse(`The rate limit, or another export of the account still running: "${busyMessage}"`, error, {
    "Retry-After": { description: "Seconds until it is worth asking again.", schema: { type: "integer" } },
  }),
};

/** `GET /api/user/export`: a copy of the caller's data as a zip (service.ts). */
export function dataExportRoutes({ exports, authenticated }: { exports: DataExports; authenticated: Authenticated }) {
  return new Elysia({ name: "data-export-routes" }).use(authenticated).get(
    "/api/user/export",
    async ({ user }) => {
      const archive = await exports.open(user);
      return new Response(archive.body, {
        headers: {
          "content-type": "application/zip",
          "content-disposition": attachmentDisposition(archive.fileName),
          "cache-control": "private, no-store",
          "x-content-type-options": "nosniff",
        },
      });
    },
    {
      detail: {
        tags: ["User"],
        security: [{ bearer: [] }],
        summary: "Download a copy of all the account's data (zip)",
        description:
          "A zip of the profile (as `GET /api/user`), the folders, and every task: its detail (as `GET /api/tasks/{id}`), transcript " +
          "as JSON with the recognised words (as the `json` export) and as SRT (as the `srt` export), summary, mind map, and its media " +
          "files; README.txt inside says where each is. Streamed as it is made, so an account of any size downloads in constant " +
          "server memory. The web app's session and API keys of the account may both ask for it (a key reads all of this " +
          "through the API anyway). One export at a time per account: a second one while the first is still being " +
          "downloaded is 429.",
        responses,
      },
    },
  );
}
