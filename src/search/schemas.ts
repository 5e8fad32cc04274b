import { t } from "elysia";
import { maxQueryLength } from "./query.ts";

// Checked in Search.search, like the task list's ranges: Elysia's query decoder reports its errors without
// the field's name, and spec 7 wants errors keyed by field. So q is optional here and required there.
export const searchQuery = t.Object({
  q: t.Optional(
    t.String({
      description:
        `What to find, at most ${maxQueryLength} characters: words (all must match), "exact phrases", and prefixes (transc*). ` +
        "422 for an unbalanced quote, a * that ends no word, control characters, or no word at all.",
    }),
  ),
  page: t.Optional(t.Integer({ default: 1, description: "Page number, from 1." })),
  per_page: t.Optional(t.Integer({ default: 25, description: "Results per page, 1 to 100." })),
});

export const searchResultSchema = t.Object({
  task_id: t.Integer(),
  task_name: t.String(),
  segment_id: t.Integer(),
  start: t.Integer({ description: "Start time in ms." }),
  end: t.Integer({ description: "End time in ms." }),
  speaker: t.Nullable(t.String()),
  snippet: t.String({ description: "The segment's text, HTML-escaped, with each match in <mark>…</mark>; a long segment is cut around its first match (…)." }),
});

export const searchResultsSchema = t.Object({
  data: t.Array(searchResultSchema),
  current_page: t.Integer(),
  last_page: t.Integer(),
  per_page: t.Integer(),
  total: t.Integer(),
});
