/** What the document builder reads of an Elysia route (`app.routes`): its method, path and the hooks' schemas and detail. */
export type RouteShape = {
  method: string;
  path: string;
  hooks: {
    body?: unknown;
    query?: unknown;
    params?: unknown;
    response?: unknown;
    detail?: RouteDetail;
  };
};

/** A route's `detail`: Elysia's OpenAPI fields, and ours (`responseHeaders`, `parameters`) described where they are set. */
export type RouteDetail = {
  hide?: boolean;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: unknown[];
  responses?: Record<string, unknown>;
} & Record<string, unknown>;
