import type { JsonSchema } from "./normalize-schema.ts";
import type { ErrorStatus } from "./errors.ts";

/** What the OpenAPI document says beyond the routes' own schemas (src/openapi.ts fills it in). */
export type OpenApiOptions = {
  info: { title: string; version: string; description: string; contact?: { name: string; url: string } };
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  /** Schemas that get a name in `components.schemas`; every place they appear becomes a `$ref`. */
  named: Record<string, unknown>;
  /** The error statuses an operation answers besides those its shape implies (see errors.ts), by `METHOD /path`. */
  errors: Record<string, ErrorStatus[]>;
  /**
   * Bounds a service checks itself (with its own 422 message) that the parameter's schema leaves out, by
   * `METHOD /path` and parameter name: the document states them all the same.
   */
  parameterBounds?: Record<string, Record<string, JsonSchema>>;
  /** Request media types where a body is not JSON alone, by `METHOD /path`: all of them (a file upload takes multipart). */
  bodyMediaTypes?: Record<string, string[]>;
  /**
   * A cookie scheme (the web app's session) that every operation secured by `bearer` accepts as well, but the
   * OpenAI-compatible ones (API keys only); such an operation that changes something also answers 403 to a request
   * with the cookie from another site's page.
   */
  sessionScheme?: { name: string; scheme: JsonSchema };
};
