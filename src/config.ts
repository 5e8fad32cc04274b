import { isIP } from "node:net";
import { resolve } from "node:path";
import { loadTranscriptionConfig, type TranscriptionConfig } from "./transcription/config.ts";
import { defaultRequestLimits, type RequestLimits } from "./http/request-limits.ts";

export type Role = "api" | "projections" | "workers";

/** Everything the service reads from the environment, validated once at start (composition root only). */
export type Config = {
  port: number;
  dataDir: string;
  /** Base URL clients reach the API at; used in share links and URLs signed by the embedded blob store. */
  publicUrl: string;
  roles: Role[];
  eventStoreUrl: string | null;
  mongodbUrl: string | null;
  mongodbDatabase: string;
  natsUrl: string | null;
  /** The JetStream stream's bounds (NATS_STREAM_MAX_AGE_SECONDS, NATS_STREAM_MAX_BYTES). */
  natsStream: { maxAgeMs: number; maxBytes: number };
  /** `publicEndpoint`: where clients reach S3 for presigned URLs (S3_PUBLIC_ENDPOINT), when it is not where the service does. */
  s3: {
    endpoint: string;
    publicEndpoint: string | null;
    bucket: string;
    region: string;
    accessKeyId: string;
    secretAccessKey: string;
    forcePathStyle: boolean;
  } | null;
  workerConcurrency: number;
  /**
   * How long the relay's, the projection writer's and the timed jobs' leases last (LEASE_TTL_SECONDS):
   * one process of all the replicas holds each; when it dies, another takes over within this time.
   */
  leaseTtlMs: number;
  /**
   * Work that takes hundreds of megabytes (a request body over BODY_LIMIT_BYTES, summarising a transcript over
   * 1 MiB) done at once per process, the rest waiting in line (HEAVY_WORK_AT_ONCE, default 1).
   */
  heavyWorkAtOnce: number;
  /** Request body limits (BODY_LIMIT_BYTES, TRANSCRIPT_BODY_LIMIT_BYTES, JSON_MAX_DEPTH, JSON_MAX_VALUES); see src/http/request-limits.ts. */
  requestLimits: RequestLimits;
  rateLimitPerMinute: number;
  loginAttemptsPerMinute: number;
  /** Accounts one client address may register per minute (REGISTRATIONS_PER_MINUTE, default 5). */
  registrationsPerMinute: number;
  /** OpenID Connect provider for `POST /api/auth/social-login` (provider `idp`); null when not configured. */
  idp: { issuer: string; clientId: string; clientSecret: string; redirectUri: string } | null;
  /** Verifies payment webhooks; null derives one from the service secret (what the sandbox provider uses). */
  paymentWebhookSecret: string | null;
  /** Server-side fetches of remote and video-link media (MEDIA_FETCH_*, YT_DLP_PATH). */
  mediaFetch: { maxBytes: number; timeoutSeconds: number; allowLoopback: boolean; forbiddenAddresses: string[]; ytDlp: string };
  /** Speech recognition, summaries, chunking and deadlines (src/transcription/config.ts). */
  transcription: TranscriptionConfig;
  /** The lowest level logged (LOG_LEVEL: trace, debug, info, warn, error, fatal, silent). */
  logLevel: LogLevel;
  /** Prometheus metrics (METRICS=on|off, default on): with them off, `GET /metrics` is 404 and requests pay nothing for them. */
  metricsEnabled: boolean;
  /** When set (METRICS_TOKEN), `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: string | null;
};

export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export class ConfigError extends Error {}

function integer(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

function oneOf<T extends string>(env: Record<string, string | undefined>, name: string, values: readonly T[], fallback: T): T {
  const raw = optional(env, name) ?? fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
  return raw as T;
}

function optional(env: Record<string, string | undefined>, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

function identityProvider(env: Record<string, string | undefined>, port: number): Config["idp"] {
  const issuer = optional(env, "IDP_ISSUER");
  if (!issuer) return null;
  const clientId = optional(env, "IDP_CLIENT_ID");
  const clientSecret = optional(env, "IDP_CLIENT_SECRET");
  if (!clientId || !clientSecret) throw new ConfigError("IDP_ISSUER needs IDP_CLIENT_ID and IDP_CLIENT_SECRET");
  const redirectUri = optional(env, "IDP_REDIRECT_URI") ?? `${optional(env, "PUBLIC_URL") ?? `http://localhost:${port}`}/auth/callback`;
  return { issuer: issuer.replace(/\/+$/, ""), clientId, clientSecret, redirectUri };
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const port = integer(env, "PORT", 3000, 0, 65535);
  const roles = (optional(env, "ROLES") ?? "api,projections,workers").split(",").map((r) => r.trim());
  for (const role of roles) {
    if (role !== "api" && role !== "projections" && role !== "workers") throw new ConfigError(`ROLES: unknown role "${role}" (api, projections, workers)`);
  }
  const s3Endpoint = optional(env, "S3_ENDPOINT");
  let s3: Config["s3"] = null;
  if (s3Endpoint) {
    const bucket = optional(env, "S3_BUCKET");
    const accessKeyId = optional(env, "S3_ACCESS_KEY_ID") ?? optional(env, "AWS_ACCESS_KEY_ID");
    const secretAccessKey = optional(env, "S3_SECRET_ACCESS_KEY") ?? optional(env, "AWS_SECRET_ACCESS_KEY");
    if (!bucket || !accessKeyId || !secretAccessKey) throw new ConfigError("S3_ENDPOINT needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY");
    s3 = {
      endpoint: s3Endpoint,
      publicEndpoint: optional(env, "S3_PUBLIC_ENDPOINT"),
      bucket,
      region: optional(env, "S3_REGION") ?? "us-east-1",
      accessKeyId,
      secretAccessKey,
      forcePathStyle: (optional(env, "S3_FORCE_PATH_STYLE") ?? "true") !== "false",
    };
  }
  return {
    port,
    dataDir: resolve(optional(env, "DATA_DIR") ?? "./data"),
    publicUrl: (optional(env, "PUBLIC_URL") ?? `http://localhost:${port}`).replace(/\/+$/, ""),
    roles: roles as Role[],
    eventStoreUrl: optional(env, "EVENTSTORE_URL"),
    mongodbUrl: optional(env, "MONGODB_URL"),
    mongodbDatabase: optional(env, "MONGODB_DATABASE") ?? "scribe",
    natsUrl: optional(env, "NATS_URL"),
    natsStream: {
      maxAgeMs: integer(env, "NATS_STREAM_MAX_AGE_SECONDS", 7 * 24 * 3600, 60, 10 * 365 * 24 * 3600) * 1000,
      maxBytes: integer(env, "NATS_STREAM_MAX_BYTES", 1024 ** 3, 1024 * 1024, Number.MAX_SAFE_INTEGER),
    },
    s3,
    workerConcurrency: integer(env, "WORKER_CONCURRENCY", 2, 1, 64),
    leaseTtlMs: integer(env, "LEASE_TTL_SECONDS", 10, 1, 3600) * 1000,
    requestLimits: {
      bodyBytes: integer(env, "BODY_LIMIT_BYTES", defaultRequestLimits.bodyBytes, 1024, 2 ** 31),
      transcriptBodyBytes: integer(env, "TRANSCRIPT_BODY_LIMIT_BYTES", defaultRequestLimits.transcriptBodyBytes, 1024, 2 ** 31),
      jsonDepth: integer(env, "JSON_MAX_DEPTH", defaultRequestLimits.jsonDepth, 4, 1000),
      transcriptJsonValues: integer(env, "JSON_MAX_VALUES", defaultRequestLimits.transcriptJsonValues, 1000, 100_000_000),
    },
    heavyWorkAtOnce: integer(env, "HEAVY_WORK_AT_ONCE", 1, 1, 1000),
    rateLimitPerMinute: integer(env, "RATE_LIMIT_PER_MINUTE", 10, 1, 1_000_000_000),
    loginAttemptsPerMinute: integer(env, "LOGIN_ATTEMPTS_PER_MINUTE", 5, 1, 1_000_000_000),
    registrationsPerMinute: integer(env, "REGISTRATIONS_PER_MINUTE", 5, 1, 1_000_000_000),
    idp: identityProvider(env, port),
    paymentWebhookSecret: optional(env, "PAYMENT_WEBHOOK_SECRET"),
    logLevel: oneOf(env, "LOG_LEVEL", logLevels, "info"),
    metricsEnabled: oneOf(env, "METRICS", ["on", "off"], "on") === "on",
    metricsToken: optional(env, "METRICS_TOKEN"),
    transcription: loadTranscriptionConfig(env, (message) => new ConfigError(message)),
    mediaFetch: {
      maxBytes: integer(env, "MEDIA_FETCH_MAX_BYTES", 2_147_483_648, 1, Number.MAX_SAFE_INTEGER),
      timeoutSeconds: integer(env, "MEDIA_FETCH_TIMEOUT_SECONDS", 900, 1, 86_400),
      // Tests serve media from 127.0.0.1; never set this in production (it opens loopback to fetches).
      allowLoopback: optional(env, "MEDIA_FETCH_ALLOW_LOOPBACK") === "true",
      forbiddenAddresses: addressList(env, "MEDIA_FETCH_FORBIDDEN_ADDRESSES"),
      ytDlp: optional(env, "YT_DLP_PATH") ?? "yt-dlp",
    },
  };
}

/** Comma-separated IP literals (tests: loopback addresses that stand for a private hop). */
function addressList(env: Record<string, string | undefined>, name: string): string[] {
  const raw = optional(env, name);
  if (!raw) return [];
  const addresses = raw
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  for (const address of addresses) if (isIP(address) === 0) throw new ConfigError(`${name}: ${address} is not an IP address`);
  return addresses;
}
