import { ValidationFailedError } from "../core/errors.ts";
import { MediaFetchError, vetUrl, type Resolver } from "../media/safe-fetch.ts";
import { maxUrlLength } from "./events.ts";

/**
 * The address policy of remote media, applied when an endpoint is registered: http(s) only, no user
 * name or password, and every address the host resolves to public or inside WEBHOOK_ALLOWED_NETWORKS.
 * Each attempt checks it again. Refused: 422 with `errors.url`.
 */
export async function checkTargetUrl(raw: string, policy: { allowedNetworks: readonly string[]; resolve?: Resolver }): Promise<string> {
  const refuse = (message: string): never => {
    throw new ValidationFailedError({ url: [message] });
  };
  if (raw.length > maxUrlLength) refuse(`The url must not be longer than ${maxUrlLength} characters.`);
  if (!/^https?:\/\//i.test(raw)) refuse("The url must be an http or https URL.");
  try {
    const { url } = await vetUrl(raw, { allowLoopback: false, allowedNetworks: policy.allowedNetworks, resolve: policy.resolve });
    return url.href;
  } catch (error) {
    if (error instanceof MediaFetchError) return refuse(`The url cannot receive webhooks: ${error.message}.`);
    throw error;
  }
}
