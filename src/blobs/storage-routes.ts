import { Elysia } from "elysia";
import { leaveBodyUnread } from "../http/raw-body.ts";

/**
 * The URLs a blob store signs to this API itself (the embedded store's stand-in for presigned S3 URLs):
 * signatures, not sessions, authorise them. The body is left unread, so a part PUT reaches the store as
 * the raw request stream and is written to disk chunk by chunk (a 100 MB part must not become a 100 MB
 * buffer). The composition root mounts this only for a store that has `serveSignedRequest`.
 */
export function storageRoutes(serveSignedRequest: (request: Request) => Promise<Response>) {
  const serve = ({ request }: { request: Request }) => serveSignedRequest(request);
  // Not in the OpenAPI document: clients only ever follow the URLs sign and sign-part hand out.
  const hook = { parse: leaveBodyUnread, detail: { hide: true } };
  return new Elysia().get("/storage/*", serve, hook).head("/storage/*", serve, hook).put("/storage/*", serve, hook);
}
