import { Elysia } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Search } from "./service.ts";
import { searchQuery, searchResultsSchema } from "./schemas.ts";

/** Search inside the caller's transcripts. */
export function searchRoutes({ search, authenticated }: { search: Search; authenticated: Authenticated }) {
  return new Elysia({ name: "search-routes" }).use(authenticated).get("/api/search", ({ query, caller }) => search.search(caller.userId, query), {
    query: searchQuery,
    response: { 200: searchResultsSchema },
    detail: {
      tags: ["Search"],
      security: [{ bearer: [] }],
      summary: "Search inside transcripts",
      description:
        "Segments of the caller's transcripts that match every word, phrase and prefix of `q`, most relevant first (BM25). Edits, deletions, " +
        "renames and retries show at once. A new or edited transcript's answer waits at most 2 s for search: the segments of one that takes " +
        "longer to index (from about 10,000 segments) become searchable moments after its answer, in the order written.",
    },
  });
}
