import { lastResortAnswer } from "./last-resort.ts";

/**
 * How the service's port is served (main.ts), whatever NODE_ENV says. Bun's `development` follows NODE_ENV
 * (and Elysia passes `NODE_ENV !== "production"`): unset, as under a plain `bun src/main.ts`, a throw that
 * escaped the app was answered with Bun's development page (stack frames, absolute paths, source lines).
 * Here it is never on, and Bun's own error hook answers the spec's JSON 500 and logs it: the app's outermost
 * layer (last-resort.ts) catches every throw first, so this one is for what fails around it.
 */
export function serverOptions(port: number) {
  return {
    port,
    // Parts stream to disk, but Bun still caps request bodies: allow a whole 2 GiB file plus slack.
    maxRequestBodySize: 2 ** 31 + 2 ** 20,
    development: false,
    error: (error: Error) => lastResortAnswer(error),
  };
}
