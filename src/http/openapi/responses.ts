import type { OpenAPIV3 } from "openapi-types";

/**
 * OpenAPI response objects for answers that are not one JSON schema (files, pages, streams), which a
 * route puts in `detail.responses`. Written in the 3.0 vocabulary Elysia's types know (`nullable`,
 * `format: binary`); buildOpenApi normalises them into 3.1 like every other schema.
 */
export type ResponseObject = OpenAPIV3.ResponseObject;

const binary: OpenAPIV3.SchemaObject = { type: "string", format: "binary" };

/** Bytes of one of these media types. */
export function fileResponse(description: string, mediaTypes: readonly string[], headers?: Record<string, OpenAPIV3.HeaderObject>): ResponseObject {
  const response: ResponseObject = { description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: binary }])) };
  if (headers) response.headers = headers;
  return response;
}

/** Text of one media type (an HTML page, an event stream). */
export function textResponse(description: string, mediaType: string): ResponseObject {
  return { description, content: { [mediaType]: { schema: { type: "string" } } } };
}

/** A JSON body, described inline. */
export function jsonResponse(
  description: string,
  schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject,
  headers?: Record<string, OpenAPIV3.HeaderObject>,
): ResponseObject {
  const response: ResponseObject = { description, content: { "application/json": { schema } } };
  if (headers) response.headers = headers;
  return response;
}

export const contentRange: Record<string, OpenAPIV3.HeaderObject> = {
  "Content-Range": { description: "`bytes start-end/size` of the part sent.", schema: { type: "string" } },
};
