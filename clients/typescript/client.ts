import createClient from "openapi-fetch";
import type { paths } from "./schema.d.ts";

export type { components, operations, paths } from "./schema.d.ts";

/**
 * A typed client of the Scribe API (openapi-fetch over the types openapi-typescript generates from the
 * service's OpenAPI document, `npm run client`). Every path, parameter, body and answer, errors included,
 * is typed: `const { data, error } = await scribe.GET("/api/tasks/{id}", { params: { path: { id } } })`.
 */
export function createScribeClient(baseUrl: string, token?: string) {
  return createClient<paths>({ baseUrl, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

export type ScribeClient = ReturnType<typeof createScribeClient>;
