import { Elysia, type AnyElysia } from "elysia";
import { NotFoundError } from "../core/errors.ts";
import { isValidBlobKey, type BlobStore, type ByteRange } from "../blobs/port.ts";
import type { FileBlobStore } from "../blobs/filesystem.ts";
import { parseRange } from "../blobs/filesystem-http.ts";
import type { Tasks } from "./service.ts";
import { taskParams } from "./schemas.ts";
import { ownsMediaKey } from "../media/ownership.ts";

const missing = () => new NotFoundError("The task has no stored audio.");

/**
 * Spec 4.2 `GET /api/tasks/{id}/audio`: the original file of an `objstore` task, with Range support.
 * Only keys under the owner's own upload prefix are served, so a task created by hand with another
 * account's path cannot read that account's file.
 */
export function audioRoutes({
  tasks,
  blobs,
  fileBlobs,
  authenticated,
}: {
  tasks: Tasks;
  blobs: BlobStore;
  fileBlobs: FileBlobStore | null;
  authenticated: AnyElysia;
}) {
  return new Elysia({ name: "audio-routes" }).use(authenticated).get(
    "/api/tasks/:id/audio",
    async ({ params, caller, request }) => {
      const task = await tasks.owned(caller.userId, params.id);
      if (task.disk !== "objstore" || !isValidBlobKey(task.path) || !ownsMediaKey(task.userId, task.path)) throw missing();
      const headers = new Headers({
        "accept-ranges": "bytes",
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox",
        "cache-control": "private, no-store",
      });

      const info = fileBlobs ? await fileBlobs.locate(task.path) : await blobs.head(task.path);
      if (!info) throw missing();
      let range: ByteRange | null = null;
      const rangeHeader = request.headers.get("range");
      if (rangeHeader) {
        const parsed = parseRange(rangeHeader, info.size);
        if (parsed === "unsatisfiable") {
          headers.set("content-range", `bytes */${info.size}`);
          headers.set("content-type", "application/json");
          return new Response(JSON.stringify({ message: "Range not satisfiable." }), { status: 416, headers });
        }
        range = parsed;
      }
      const { start, end } = range ?? { start: 0, end: info.size - 1 };
      headers.set("content-type", info.contentType);
      headers.set("content-length", String(Math.max(0, end - start + 1)));
      if (range) headers.set("content-range", `bytes ${start}-${end}/${info.size}`);
      const status = range ? 206 : 200;
      // Embedded: a file slice, which Bun sends with sendfile. S3: the object's (ranged) body stream.
      if (fileBlobs && "path" in info) return new Response(Bun.file(info.path as string).slice(start, end + 1), { status, headers });
      const read = await blobs.get(task.path, range ? { range } : {});
      if (!read) throw missing();
      return new Response(read.body, { status, headers });
    },
    {
      params: taskParams,
      detail: {
        tags: ["Tasks"],
        security: [{ bearer: [] }],
        summary: "Stream the task's original file",
        description:
          "objstore tasks only; `Range: bytes=…` gives 206 with Content-Range (416 when unsatisfiable). 404 when the file is missing or the task is not on objstore.",
      },
    },
  );
}
