import { Elysia } from "elysia";
import type { FileBlobStore } from "./filesystem.ts";

/**
 * Ends Elysia's parse chain without reading the body, so a part PUT reaches the store as the raw
 * request stream and is written to disk chunk by chunk (a 100 MB part must not become a 100 MB
 * buffer). A function rather than `parse: "none"`: Elysia 1.4 honours "none" only when it is the
 * route's sole parse hook, and answers 400 once the app adds a global onParse.
 */
const leaveBodyUnread = () => null;

/** The URLs the embedded blob store signs; signatures, not sessions, authorise them. */
export function storageRoutes(store: FileBlobStore) {
  const serve = ({ request }: { request: Request }) => store.handle(request);
  return new Elysia()
    .get("/storage/*", serve, { parse: leaveBodyUnread })
    .head("/storage/*", serve, { parse: leaveBodyUnread })
    .put("/storage/*", serve, { parse: leaveBodyUnread });
}
