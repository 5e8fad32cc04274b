import { nameText } from "../http/names.ts";
import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Folders } from "./service.ts";
import type { Idempotency } from "../http/idempotency.ts";
import { folderNameTooLong, maxFolderNameWidth } from "./name.ts";

export const folderSchema = t.Object({ id: t.Integer(), name: t.String() });
export const folderListSchema = t.Object({
  folders: t.Array(t.Object({ id: t.Integer(), name: t.String(), count: t.Integer() })),
  uncategorized_count: t.Integer(),
  total_count: t.Integer(),
});
const nameBody = t.Object({
  name: nameText({
    // A name of more than 14 characters is over 14 columns: refused here, early, in the same words as the width check.
    maxLength: maxFolderNameWidth,
    tooLong: folderNameTooLong,
    description:
      "At most 14 columns, a wide (CJK) character counting as two: 14 characters, or 7 Chinese characters (422 with that in words). Unique per " +
      "user (case-insensitive).",
  }),
});
const nameParams = t.Object({ name: t.String({ minLength: 1, maxLength: 255 }) });

/** Spec 4.4. */
export function folderRoutes({ folders, authenticated, idempotency }: { folders: Folders; authenticated: Authenticated; idempotency: Idempotency }) {
  const detail = (summary: string) => ({ tags: ["Folders"], security: [{ bearer: [] }], summary });
  return new Elysia({ name: "folder-routes" })
    .use(authenticated)
    .use(idempotency)
    .get("/api/folders", ({ caller }) => folders.list(caller.userId), {
      response: { 200: folderListSchema },
      detail: detail("Folders with task counts"),
    })
    .post(
      "/api/folders",
      async ({ body, caller, set, metadata }) => {
        const created = await folders.create(caller.userId, body.name, metadata);
        set.status = 201;
        return created;
      },
      { idempotent: true, body: nameBody, response: { 201: folderSchema }, detail: detail("Create a folder") },
    )
    .patch("/api/folders/:name", ({ params, body, caller, metadata }) => folders.rename(caller.userId, params.name, body.name, metadata), {
      params: nameParams,
      body: nameBody,
      response: { 200: folderSchema },
      detail: detail("Rename a folder (its tasks follow)"),
    })
    .delete(
      "/api/folders/:name",
      async ({ params, caller, metadata }) => {
        await folders.remove(caller.userId, params.name, metadata);
        return { message: "Folder deleted; its tasks are now uncategorized." };
      },
      { params: nameParams, response: { 200: t.Object({ message: t.String() }) }, detail: detail("Delete a folder (its tasks become uncategorized)") },
    );
}
