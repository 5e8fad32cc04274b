/**
 * A handler's answer as Elysia types it: a promise of the route's body or a promise of a Response, where a cached
 * read gives a promise of either (a fresh body, which Elysia checks against the schema, or the kept JSON as it was
 * sent). Only the type changes.
 */
export const bodyOrResponse = <Body>(answer: Promise<Body | Response>) => answer as Promise<Body> | Promise<Response>;
