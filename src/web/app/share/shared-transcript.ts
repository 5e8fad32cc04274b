import type { paths } from "../../../../clients/typescript/client.ts";
import { ApiError, api, call } from "../api.ts";

/** A shared transcript as `GET /share/tasks/{id}` answers `Accept: application/json`. */
export type SharedTranscript = paths["/share/tasks/{id}"]["get"]["responses"][200]["content"]["application/json"];

/**
 * Reads a shared transcript through the public API: no token is needed (the app sends the session's if there
 * is one, which changes nothing). The same URL answers a browser's navigation with the app's page, so the
 * request must ask for JSON.
 */
export async function loadSharedTranscript(id: number): Promise<SharedTranscript> {
  const data = await call(api.GET("/share/tasks/{id}", { params: { path: { id } }, headers: { accept: "application/json" } }));
  if (typeof data === "string") throw new ApiError(0, "The server answered with a page instead of the transcript. Please reload.");
  return data;
}
