import type { DocumentDecoration } from "elysia";
import type { OpenAPIV3 } from "openapi-types";
import { textResponse } from "../http/openapi/responses.ts";
import { audioUrlLifetimeSeconds } from "./audio-url.ts";
import { taskStatuses } from "./events.ts";

/** What `GET /share/tasks/{id}` answers for `Accept: application/json`, as the OpenAPI document shows it. */
const sharedTaskJson: OpenAPIV3.SchemaObject = {
  type: "object",
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    status: { type: "string", enum: [...taskStatuses] },
    duration: { type: "integer" },
    created_at: { type: "string", format: "date-time" },
    summary: { type: "string", nullable: true },
    mindmap: { type: "string", nullable: true },
    audio_url: {
      type: "string",
      nullable: true,
      description:
        "The task's media at a signed URL for a media element (no token, Range), at the address the request came to, good for " +
        `${audioUrlLifetimeSeconds / 3600} hours while the task stays shared; null when the task has no stored media.`,
    },
    segments: {
      type: "array",
      items: {
        type: "object",
        properties: {
          start: { type: "integer" },
          end: { type: "integer" },
          text: { type: "string" },
          speaker: { type: "string", nullable: true },
        },
        required: ["start", "end", "text", "speaker"],
      },
    },
  },
  required: ["id", "name", "status", "duration", "created_at", "summary", "mindmap", "audio_url", "segments"],
};

/** The OpenAPI detail of the public share page: HTML or JSON, by the request's Accept. */
export const sharePageDetail: DocumentDecoration = {
  responses: {
    200: {
      description: "The shared transcript: an HTML page, or JSON for `Accept: application/json`.",
      content: {
        ...textResponse("", "text/html").content,
        "application/json": { schema: sharedTaskJson },
      },
    },
  },
  tags: ["Tasks"],
  summary: "Public page of a shared transcript",
  description:
    "HTML (the title, the transcript with times and speakers, the summary, and Open Graph and Twitter meta for link previews; for " +
    "`Accept: text/html`, the web app's page, which the app then takes over), or JSON for `Accept: application/json`. 404 when not shared.",
};
