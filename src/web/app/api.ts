import { createScribeClient } from "../../../clients/typescript/client.ts";
import { errorOf, ApiError } from "./api-errors.ts";
import { session } from "./session.ts";

export { ApiError, errorOf, waitInWords } from "./api-errors.ts";

export type { components } from "../../../clients/typescript/client.ts";

/**
 * The typed client of clients/typescript (openapi-fetch over the types generated from the OpenAPI
 * document), on this origin. Requests carry no token: the browser sends the session cookie (same origin) that
 * signing in set (session.ts). A 401 while signed in means the session ended (signed out elsewhere, expired),
 * which sends the app back to the sign-in page.
 */
export const api = createScribeClient("");
api.use({
  onResponse({ response }) {
    if (response.status === 401 && session.current()) session.end("expired");
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
  if (!answer.response.ok) throw errorOf(answer.response, answer.error);
  return answer.data as T;
}
