/**
 * Every capability of the service, each its folder's manifest (src/core/capability.ts): the composition root
 * wires their routes, workers and jobs from this list, projections/ and workers/ list theirs from it, and the
 * architecture test checks the folders against it. Adding a capability is its folder and one line here.
 * Each is imported where it is listed (a top-level await), so that one line is all a new one needs.
 *
 * The order is the order of their routes, their read models (started and rebuilt) and their workers. A tuple, so
 * that each keeps its type: the schema of settings (src/settings-schema.ts) keeps every capability's settings typed.
 */
export const capabilities = [
  (await import("../accounts/index.ts")).capability,
  (await import("../notifications/index.ts")).capability,
  (await import("../billing/index.ts")).capability,
  (await import("../tasks/index.ts")).capability,
  (await import("../folders/index.ts")).capability,
  (await import("../exports/index.ts")).capability,
  (await import("../uploads/index.ts")).capability,
  (await import("../search/index.ts")).capability,
  (await import("../transcription/index.ts")).capability,
  (await import("../webhooks/index.ts")).capability,
  (await import("../openai-compat/index.ts")).capability,
  (await import("../live/index.ts")).capability,
  (await import("../dead-letters/index.ts")).capability,
  (await import("../data-export/index.ts")).capability,
  (await import("../erasure/index.ts")).capability,
  (await import("../retention/index.ts")).capability,
] as const;
