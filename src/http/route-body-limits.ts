import type { JsonShapeLimits } from "./json-shape.ts";
import { routePlans, type RouteBody, type RoutePlan } from "./body-plans.ts";
import { coreSchema } from "../config/schema.ts";

export type RequestLimits = {
  /** Most bytes a request body may have (BODY_LIMIT_BYTES, default 1 MiB). */
  bodyBytes: number;
  /**
   * For the two requests that carry a whole transcript, create and update a task (TRANSCRIPT_BODY_LIMIT_BYTES, default 24 MiB:
   * a 10 MB `text` edit escaped as JSON).
   */
  transcriptBodyBytes: number;
  /** Most nesting of arrays and objects in a JSON body (JSON_MAX_DEPTH, default 32; our deepest valid body has 4). */
  jsonDepth: number;
  /** Most values in a transcript body (JSON_MAX_VALUES, default 2,000,000: 100,000 segments of 20 values each). */
  transcriptJsonValues: number;
  /** The audio file `POST /v1/audio/transcriptions` takes (OPENAI_COMPAT_FILE_LIMIT_BYTES, default 25 MiB, OpenAI's own limit). */
  openAiFileBytes: number;
};

/** The defaults are the configuration schema's (src/config/settings/limits.ts), so the two cannot differ. */
export const defaultRequestLimits: RequestLimits = {
  bodyBytes: coreSchema.BODY_LIMIT_BYTES.fallback,
  transcriptBodyBytes: coreSchema.TRANSCRIPT_BODY_LIMIT_BYTES.fallback,
  jsonDepth: coreSchema.JSON_MAX_DEPTH.fallback,
  transcriptJsonValues: coreSchema.JSON_MAX_VALUES.fallback,
  openAiFileBytes: coreSchema.OPENAI_COMPAT_FILE_LIMIT_BYTES.fallback,
};

/** Every other JSON body is small: its largest array is a bulk request's 1,000 ids. */
const ordinaryShape = { arrayItems: 1000, values: 20_000 };
/** No body has an object of more than a dozen members, or more than a few dozen names (json-shape.ts: why they are bounded). */
const nameLimits = { objectMembers: 1000, memberNames: 1000 };
/** A transcript's largest array is its 100,000 segments (or one segment's 100,000 tokens). */
const transcriptArrayItems = 100_000;

/** Room beyond a schema's largest valid body for members it does not name, which are ignored (docs/api.md). */
const ignoredMembersBytes = 64 * 1024;

/** Routes whose body is not limited here: storage PUTs stream upload parts straight to disk. */
export const unlimited = (path: string) => path.startsWith("/storage/");
/** `PUT /api/user` takes an avatar of up to 5 MB as a form: it gets that, plus room for the form around it. */
const avatarBytes = 5 * 1024 * 1024 + 64 * 1024;
/** Room for the form around a file: its part headers and the other fields (model, language, prompt, ...). */
const formBytes = 64 * 1024;
const openAiFileRoute = (method: string, path: string) => method === "POST" && path === "/v1/audio/transcriptions";
const transcriptRoute = (method: string, path: string) =>
  (method === "POST" && path === "/api/tasks") || (method === "PATCH" && /^\/api\/tasks\/[^/]+$/.test(path) && !path.endsWith("/bulk"));
const avatarRoute = (method: string, path: string) => method === "PUT" && path === "/api/user";

/** The routes that take a body over the ordinary limit: transcripts, `PUT /api/user` (an avatar) and OpenAI's file uploads. */
export const takesLargeBody = (method: string, path: string) => transcriptRoute(method, path) || avatarRoute(method, path) || openAiFileRoute(method, path);

/** What a route's body may be: its byte limit, the bounds of its JSON's shape, and what its schema reads of it. */
export type RouteBodyLimits = {
  planOf(method: string, path: string): RoutePlan | null;
  /** `mediaType`: the body's (mediaTypeOf); only a multipart form carries files. */
  limitOf(method: string, path: string, mediaType: string): number;
  shapeOf(method: string, path: string): JsonShapeLimits;
};

/** Each route's body limits, from the configured limits and (`routes`: the app's, looked up on first use) its schema. */
export function routeBodyLimits(limits: RequestLimits, routes: () => readonly RouteBody[]): RouteBodyLimits {
  const planOf = routePlans(routes);
  const sizeLimitOf = (method: string, path: string) =>
    transcriptRoute(method, path)
      ? limits.transcriptBodyBytes
      : avatarRoute(method, path)
        ? Math.max(limits.bodyBytes, avatarBytes)
        : openAiFileRoute(method, path)
          ? Math.max(limits.bodyBytes, limits.openAiFileBytes + formBytes)
          : limits.bodyBytes;
  return {
    planOf,
    // A route whose schema bounds its body's size takes no more than that (twice, for whitespace, plus room for
    // members it ignores): a 1 MiB name to POST /api/register is refused by its Content-Length before a byte is
    // read, where reading, decoding and parsing it held the event loop for everyone else (bench/hostile-load).
    limitOf(method, path, mediaType) {
      const plan = planOf(method, path);
      const largest = mediaType === "multipart/form-data" ? plan?.largestBody : plan?.largestFilelessBody;
      const routeLimit = largest == null ? Number.POSITIVE_INFINITY : 2 * largest + ignoredMembersBytes;
      return Math.min(routeLimit, sizeLimitOf(method, path));
    },
    shapeOf: (method, path) =>
      transcriptRoute(method, path)
        ? { depth: limits.jsonDepth, arrayItems: transcriptArrayItems, ...nameLimits, values: limits.transcriptJsonValues }
        : { depth: limits.jsonDepth, ...nameLimits, ...ordinaryShape },
  };
}

/** A Content-Type's media type, as compared: what comes before its parameters, lower-cased (`Application/JSON; charset=x`). */
export const mediaTypeOf = (contentType: string | null): string => (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();

/** The answer's message when a body is over its route's limit (413). */
export const tooLarge = (limit: number) => `The request body is too large: this endpoint takes at most ${limit} bytes.`;
