import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Caller } from "../accounts/service.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import type { Uploads } from "./service.ts";
import type { Idempotency } from "../http/idempotency.ts";
import type { OriginOf } from "../http/request-origin.ts";
import { maxUploadBytes } from "./events.ts";
import { supportedFormats } from "../media/formats.ts";
import { abortBody, completeBody, completedSchema, formatsSchema, sessionSchema, signBody, signedPartSchema, signPartBody } from "./schemas.ts";

/**
 * Spec 4.3: sign, sign-part, complete, abort; and the list of formats an upload may have. `originOf`: the address the
 * caller reached the API at, which the embedded store's part URLs name (the page that asks PUTs the parts at once).
 */
export function uploadRoutes({
  uploads,
  authenticated,
  idempotency,
  originOf,
}: {
  uploads: Uploads;
  authenticated: Authenticated;
  idempotency: Idempotency;
  originOf: OriginOf;
}) {
  const detail = (summary: string, description?: string) => ({ tags: ["Uploads"], security: [{ bearer: [] }], summary, description });
  return new Elysia({ name: "upload-routes" })
    .use(authenticated)
    .use(idempotency)
    .get(
      "/api/uploads/formats",
      () => ({ formats: Object.entries(supportedFormats).map(([extension, types]) => ({ extension, content_types: [...types] })), max_size: maxUploadBytes }),
      { response: { 200: formatsSchema }, detail: detail("Supported file formats", "Each extension and the content types that may go with it.") },
    )
    .post("/api/uploads/sign", ({ body, caller, user, metadata }) => uploads.sign(caller as Caller, user as UserDocument, body, metadata), {
      body: signBody,
      response: { 200: sessionSchema },
      detail: detail(
        "Start a multipart upload",
        "The session lasts 24 hours. Parts are at least 8 MiB (except the last), at most 8 per file. 422 for an unsupported format, a content " +
          "type that does not go with the extension, or a size over 2,147,483,648 bytes; 403 when the account's balance has no time left (or less " +
          "than `duration`), or its API key has no API access.",
      ),
    })
    .post(
      "/api/uploads/sign-part",
      ({ body, caller, metadata, request, server }) => uploads.signPart((caller as Caller).userId, body, metadata, originOf({ request, server })),
      {
        body: signPartBody,
        response: { 200: signedPartSchema },
        detail: detail(
          "Sign the upload of one part",
          "The URL is S3's in the cluster profile; in the embedded profile this API's own, at the address the request came to (its Host, or a " +
            "trusted proxy's X-Forwarded-Host and X-Forwarded-Proto; see TRUSTED_PROXIES). 404 for an unknown upload or another user's; 422 when " +
            "the part number is beyond `part_count` or the upload is complete, aborted or expired.",
        ),
      },
    )
    .post(
      "/api/uploads/complete",
      async ({ body, caller, user, set, metadata }) => {
        const task = await uploads.complete(caller as Caller, user as UserDocument, body, metadata);
        set.status = 201;
        return { message: "Upload complete; the task was created.", task };
      },
      {
        idempotent: true,
        body: completeBody,
        response: { 201: completedSchema },
        detail: detail(
          "Complete an upload and create its task",
          "Answers once the task exists, with the task as created (status `pending`); repeating it returns the same answer. 422 when parts are " +
            "missing or of the wrong size (nothing is created); 403 when the account has no API access or its balance has no time left (or less " +
            "than `duration`); 429 when 3 tasks are in progress; 409 while a parallel complete of the same upload is still assembling it.",
        ),
      },
    )
    .post(
      "/api/uploads/abort",
      async ({ body, caller, metadata }) => {
        await uploads.abort((caller as Caller).userId, body, metadata);
        return { message: "Upload aborted." };
      },
      {
        body: abortBody,
        response: { 200: t.Object({ message: t.String() }) },
        detail: detail("Abort an upload", "Discards the parts; later sign-part and complete are refused."),
      },
    );
}
