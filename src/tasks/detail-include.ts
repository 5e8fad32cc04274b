import { t } from "elysia";
import { ValidationFailedError } from "../core/errors.ts";

/**
 * What `?include=` adds to a task's detail beyond spec 2.1's shape. One value so far: `words`, each segment's timed
 * words. A closed set, so a misspelt value is a 422 rather than an answer silently without what was asked for.
 */
export const detailIncludes = ["words"] as const;

const mostValues = 8;
const oneValue = new RegExp(`^(${detailIncludes.join("|")})(,(${detailIncludes.join("|")}))*$`);
const refused = `The include field takes a comma-separated list of: ${detailIncludes.join(", ")} (the parameter at most ${mostValues} times).`;

/**
 * `include`: a comma-separated list (`?include=words`), or the parameter repeated. A string rather than an array in
 * the schema: Elysia decodes an array query through a transform whose failure reaches the error handler as no
 * validation error (a 500), and a string keeps the 422 keyed `include`. Elysia passes the last of repeated values to
 * the schema; `shapeOf` checks them all.
 */
export const detailQuery = t.Object({
  include: t.Optional(
    t.String({
      maxLength: 100,
      pattern: oneValue.source,
      error: refused,
      description:
        "Adds to each segment what the spec's shape leaves out: `words`, the recognised words with their media times (ms) and confidence. " +
        "A comma-separated list, or the parameter repeated; any other value is a 422.",
    }),
  ),
});

/** What one detail answer shows beyond the spec's shape; the cache keeps each kind apart. */
export type DetailShape = { words: boolean };

export const defaultShape: DetailShape = { words: false };

/** The shape a request asks for, every `include` value checked (422 keyed `include` for one outside the set). */
export function shapeOf(query: { include?: string }, request: Request): DetailShape {
  if (query.include === undefined) return defaultShape;
  const values = new URL(request.url).searchParams.getAll("include");
  if (values.length > mostValues || !values.every((value) => value.length <= 100 && oneValue.test(value))) {
    throw new ValidationFailedError({ include: [refused] });
  }
  const asked = new Set(values.flatMap((value) => value.split(",")));
  return { words: asked.has("words") };
}

/** A recognised word as the detail shows it with `include=words`. */
export const transcriptWordView = t.Object({
  text: t.String(),
  start: t.Integer({ description: "Start in ms of the media." }),
  end: t.Integer({ description: "End in ms of the media." }),
  confidence: t.Nullable(t.Number({ description: "The engine's confidence, 0 to 1; null when it gives none (whisper)." })),
});

export const segmentWordsView = t.Optional(
  t.Array(transcriptWordView, {
    description:
      "Only with `include=words`: the engine's words in order, with their times and confidence. Empty for a transcript a client supplied, " +
      "and for a segment whose text was edited since it was recognised.",
  }),
);
