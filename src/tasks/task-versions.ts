import { ifMatchHeader, revisionCondition, type RevisionCondition } from "../http/if-match.ts";

/**
 * A task's version over HTTP: the revision of its stream's last event that changed what it shows (task-state.ts
 * taskVersion), answered as the `ETag` of `GET` and `PATCH /api/tasks/{id}`
 * (src/http/if-match.ts), and named by `If-Match` on the writes to one task, so that a change made on an
 * older version (another tab, another device) is refused with 412 instead of overwriting the newer one.
 */

const stale =
  "This task changed since you read it (another tab, device or client saved first). Read it again (GET /api/tasks/{id}) and make your change on " +
  "what it says now.";

/** The condition of a write's `If-Match` header (null: none); 422 when the header is malformed. */
export const taskCondition = (request: Request): RevisionCondition | null => revisionCondition(request.headers.get(ifMatchHeader), stale);

/** The OpenAPI description of `If-Match` on the writes to one task. */
export const ifMatchParameter = {
  name: ifMatchHeader,
  in: "header" as const,
  required: false,
  description:
    "Makes the change only if the task is still at the version you read: the `ETag` of `GET /api/tasks/{id}` (or of your last `PATCH`), sent back " +
    "as given. A list of tags matches if one does; `*` matches the task whatever its version. 412 when the task changed since; 422 when the " +
    'header is neither `*` nor a list of entity tags. Tags are compared strongly (RFC 9110 13.1.1): a weak tag (`W/"7"`) never matches. Without ' +
    "the header the change is made whatever the version, as before.",
  schema: { type: "string" as const },
};

/** The OpenAPI description of the `ETag` on answers that show a task. */
export const etagResponseHeader = {
  ETag: {
    description:
      'The task\'s version, as a strong entity tag (`"7"`): opaque. Send it back in `If-Match` to change the task only if nobody changed it ' +
      "meanwhile. It changes with every change to what the task shows, the service's included (status, summary); the service's bookkeeping " +
      "(a pdf or docx made or asked for) and a folder renamed elsewhere leave it as it is.",
    schema: { type: "string" as const },
  },
};
