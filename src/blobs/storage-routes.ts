import { Elysia } from "elysia";
import type { FileBlobStore } from "./filesystem.ts";
import { leaveBodyUnread } from "../http/raw-body.ts";

/**
 * The URLs the embedded blob store signs; signatures, not sessions, authorise them. The body is left
 * unread, so a part PUT reaches the store as the raw request stream and is written to disk chunk by chunk
 * (a 100 MB part must not become a 100 MB buffer).
 */
export function storageRoutes(store: FileBlobStore) {
  const serve = ({ request }: { request: Request }) => store.handle(request);
  return new Elysia()
    .get("/storage/*", serve, { parse: leaveBodyUnread })
    .head("/storage/*", serve, { parse: leaveBodyUnread })
    .put("/storage/*", serve, { parse: leaveBodyUnread });
}
