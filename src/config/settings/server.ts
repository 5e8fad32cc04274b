import { flag, integer, listOf, networks, optionalText, secret, text, url } from "../setting.ts";

export const roles = ["api", "projections", "workers"] as const;

/** Where the process listens, what it plays, where the embedded profile keeps its files. */
export const serverSettings = {
  PORT: integer({ group: "server", min: 0, max: 65535, fallback: 3000, description: "The HTTP port (0: any free port)." }),
  DATA_DIR: text({
    group: "server",
    kind: "path",
    fallback: "./data",
    description: "Where the embedded stores keep their files (events, read models, blobs) and the generated signing secret.",
  }),
  PUBLIC_URL: url({
    group: "server",
    protocols: ["http", "https"],
    shownDefault: "http://localhost:$PORT",
    description:
      "The address links that leave the app name (share links, the OpenAPI servers, the sandbox's webhook). URLs a caller uses at once (upload " +
      "parts, downloads, audio) name the address its request came to.",
  }),
  COMPRESSION: flag({
    group: "server",
    words: ["on", "off"],
    fallback: true,
    description:
      "Compresses the API's JSON and text answers over 1 KiB (gzip, or br, as the client accepts; downloads and media never). Off where a " +
      "reverse proxy in front compresses them already.",
  }),
  TRUSTED_PROXIES: networks({
    group: "server",
    description:
      "Reverse proxies (addresses or CIDR blocks) whose X-Forwarded-Host and X-Forwarded-Proto name the address a request came to, and whose " +
      "X-Forwarded-For names the client the sign-in limits count; from anyone else they are ignored.",
  }),
  ROLES: listOf({
    group: "server",
    values: roles,
    fallback: [...roles],
    description: "The roles this process plays; a cluster runs each in its own processes.",
  }),
  WORKER_CONCURRENCY: integer({ group: "server", min: 1, max: 64, fallback: 2, description: "Messages each worker handles at once in this process." }),
  LEASE_TTL_SECONDS: integer({
    group: "server",
    min: 1,
    max: 3600,
    fallback: 10,
    description: "How long the relay's, the projection writer's and the timed jobs' leases last: another process takes over within it.",
  }),
  SIGNING_SECRET: secret({
    group: "server",
    shownDefault: "generated into DATA_DIR/signing-secret",
    description: "Signs storage URLs and checkout references; set the same value on every API process of a cluster.",
  }),
  NODE_ENV: optionalText({
    group: "server",
    description:
      "Read by Bun and Elysia, not by Scribe (`npm start` and the image set production). No value makes Scribe answer with a development error page.",
  }),
} as const;
