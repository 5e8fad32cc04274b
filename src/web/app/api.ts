import { createScribeClient } from "../../../clients/typescript/client.ts";
import { session } from "./session.ts";

export type { components } from "../../../clients/typescript/client.ts";

/**
 * The API's one error shape (`{message, errors}`, spec section 7) as an exception: `fields` holds the
 * messages per field of a 422, which forms show next to their fields.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }

  static of(error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    return new ApiError(0, "Something went wrong. Please try again.");
  }
}

function fromBody(status: number, body: unknown): ApiError {
  const shaped = typeof body === "object" && body !== null ? (body as { message?: unknown; errors?: unknown }) : {};
  const message = typeof shaped.message === "string" ? shaped.message : `The server answered ${status}.`;
  const fields = typeof shaped.errors === "object" && shaped.errors !== null ? (shaped.errors as Record<string, string[]>) : {};
  return new ApiError(status, message, fields);
}

/**
 * The typed client of clients/typescript (openapi-fetch over the types generated from the OpenAPI
 * document), on this origin. Every request carries the session's token; a 401 to a request that carried
 * one ends the session, which sends the app back to the sign-in page.
 */
export const api = createScribeClient("");
api.use({
  onRequest({ request }) {
    const token = session.token();
    if (token !== null && !request.headers.has("authorization")) request.headers.set("authorization", `Bearer ${token}`);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has("authorization")) session.end("expired");
    return response;
  },
});

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The answer's data, or its error as an ApiError; a request that never got an answer is status 0. */
export async function call<T>(pending: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await pending;
  } catch {
    throw new ApiError(0, "The server cannot be reached. Check your connection and try again.");
  }
  if (!answer.response.ok) throw fromBody(answer.response.status, answer.error);
  return answer.data as T;
}
