import { resolve } from "node:path";
import { transcriptionConfigOf, type TranscriptionConfig } from "./transcription/config.ts";
import type { RequestLimits } from "./http/request-limits.ts";
import { ConfigError, type Env } from "./config/read-settings.ts";
import { readSettings, type Settings } from "./settings-schema.ts";
import type { roles } from "./config/settings/server.ts";
import { logLevels } from "./config/settings/observability.ts";
import { liveConfigOf, type LiveConfig } from "./live/settings.ts";

export type Role = (typeof roles)[number];

/** Everything the service reads from the environment, validated once at start (composition root only). */
export type Config = {
  port: number;
  dataDir: string;
  /**
   * The address links that leave the app name (share links, the OpenAPI servers, the sandbox's webhook). URLs a caller
   * uses at once are signed for the address its request came to (src/http/request-origin.ts), falling back to this.
   */
  publicUrl: string;
  /** Proxies whose X-Forwarded-Host and X-Forwarded-Proto are believed (TRUSTED_PROXIES: addresses and CIDR blocks). */
  trustedProxies: string[];
  roles: Role[];
  eventStoreUrl: string | null;
  mongodbUrl: string | null;
  mongodbDatabase: string;
  natsUrl: string | null;
  /** The JetStream stream's size, at which publishing waits (NATS_STREAM_MAX_BYTES; NATS_STREAM_MAX_AGE_SECONDS is retired). */
  natsStream: { maxBytes: number };
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
  /** Signs storage URLs and checkout references (SIGNING_SECRET); null: generated once and kept under DATA_DIR. */
  signingSecret: string | null;
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
  /**
   * Request body limits (BODY_LIMIT_BYTES, TRANSCRIPT_BODY_LIMIT_BYTES, JSON_MAX_DEPTH, JSON_MAX_VALUES,
   * OPENAI_COMPAT_FILE_LIMIT_BYTES); see src/http/request-limits.ts.
   */
  requestLimits: RequestLimits;
  rateLimitPerMinute: number;
  /** Requests a minute per web app session (SESSION_RATE_LIMIT_PER_MINUTE); tokens and API keys have rateLimitPerMinute. */
  sessionRateLimitPerMinute: number;
  /** How long a web app session lasts from sign-in (SESSION_DAYS). */
  sessionLifetimeMs: number;
  /** How long an access token lasts after its last recorded use (TOKEN_TTL_DAYS); API keys do not expire. */
  tokenLifetimeMs: number;
  /** The longest retention an account may set (RETENTION_MAX_DAYS; src/retention). */
  retentionMaxDays: number;
  /** How long `POST /v1/audio/transcriptions` waits for its task before answering with the task's id (OPENAI_COMPAT_WAIT_SECONDS). */
  openAiCompatWaitMs: number;
  /** Live transcription's limits (LIVE_*; src/live/settings.ts). */
  live: LiveConfig;
  loginAttemptsPerMinute: number;
  /** Accounts one client address may register per minute (REGISTRATIONS_PER_MINUTE, default 5). */
  registrationsPerMinute: number;
  /** OpenID Connect provider for `POST /api/auth/social-login` (provider `idp`); null when not configured. */
  idp: { issuer: string; clientId: string; clientSecret: string; redirectUri: string } | null;
  /** Verifies payment webhooks; null derives one from the service secret (what the sandbox provider uses). */
  paymentWebhookSecret: string | null;
  /** Server-side fetches of remote and video-link media (MEDIA_FETCH_*, YT_DLP_PATH). */
  mediaFetch: { maxBytes: number; timeoutSeconds: number; allowLoopback: boolean; forbiddenAddresses: string[]; ytDlp: string };
  /** Outgoing webhooks (WEBHOOK_TIMEOUT_SECONDS, WEBHOOK_RETRY_SCHEDULE_SECONDS, WEBHOOK_ALLOWED_NETWORKS). */
  webhooks: { timeoutMs: number; retryScheduleMs: number[]; allowedNetworks: string[] };
  /** Speech recognition, summaries, chunking and deadlines (src/transcription/config.ts). */
  transcription: TranscriptionConfig;
  /** The lowest level logged (LOG_LEVEL: trace, debug, info, warn, error, fatal, silent). */
  logLevel: LogLevel;
  /** The API's JSON and text answers compressed as the client accepts (COMPRESSION=on|off, default on). */
  compression: boolean;
  /** Whether the PDF and docx of a finished or changed transcript are made before anyone asks (EXPORT_AHEAD_OF_TIME). */
  exportsAheadOfTime: boolean;
  /** Prometheus metrics (METRICS=on|off, default on): with them off, `GET /metrics` is 404 and requests pay nothing for them. */
  metricsEnabled: boolean;
  /** When set (METRICS_TOKEN), `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: string | null;
};

export type LogLevel = (typeof logLevels)[number];
export { ConfigError, logLevels };

/** S3 when S3_ENDPOINT is set; its bucket and keys are then required (the AWS_ names stand in for the keys). */
function blobStore(s: Settings, problems: string[]): Config["s3"] {
  if (!s.S3_ENDPOINT) return null;
  const bucket = s.S3_BUCKET;
  const accessKeyId = s.S3_ACCESS_KEY_ID ?? s.AWS_ACCESS_KEY_ID;
  const secretAccessKey = s.S3_SECRET_ACCESS_KEY ?? s.AWS_SECRET_ACCESS_KEY;
  if (!bucket || !accessKeyId || !secretAccessKey) {
    problems.push("S3_ENDPOINT needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY");
    return null;
  }
  return {
    endpoint: s.S3_ENDPOINT,
    publicEndpoint: s.S3_PUBLIC_ENDPOINT,
    bucket,
    region: s.S3_REGION,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: s.S3_FORCE_PATH_STYLE,
  };
}

function identityProvider(s: Settings, publicUrl: string, problems: string[]): Config["idp"] {
  if (!s.IDP_ISSUER) return null;
  if (!s.IDP_CLIENT_ID || !s.IDP_CLIENT_SECRET) {
    problems.push("IDP_ISSUER needs IDP_CLIENT_ID and IDP_CLIENT_SECRET");
    return null;
  }
  const redirectUri = s.IDP_REDIRECT_URI ?? `${publicUrl}/auth/callback`;
  return { issuer: s.IDP_ISSUER.replace(/\/+$/, ""), clientId: s.IDP_CLIENT_ID, clientSecret: s.IDP_CLIENT_SECRET, redirectUri };
}

/**
 * Reads the configuration through the schema (src/settings-schema.ts: the core's settings and the capabilities') and refuses to go on with every
 * problem at once: malformed values, unknown settings meant for Scribe, settings that need others.
 */
export function loadConfig(env: Env = process.env): Config {
  const { values: s, problems } = readSettings(env);
  const publicUrl = (s.PUBLIC_URL ?? `http://localhost:${s.PORT}`).replace(/\/+$/, "");
  const config: Config = {
    port: s.PORT,
    dataDir: resolve(s.DATA_DIR),
    publicUrl,
    trustedProxies: s.TRUSTED_PROXIES,
    roles: s.ROLES,
    eventStoreUrl: s.EVENTSTORE_URL,
    mongodbUrl: s.MONGODB_URL,
    mongodbDatabase: s.MONGODB_DATABASE,
    natsUrl: s.NATS_URL,
    natsStream: { maxBytes: s.NATS_STREAM_MAX_BYTES },
    s3: blobStore(s, problems),
    signingSecret: s.SIGNING_SECRET,
    workerConcurrency: s.WORKER_CONCURRENCY,
    leaseTtlMs: s.LEASE_TTL_SECONDS * 1000,
    requestLimits: {
      bodyBytes: s.BODY_LIMIT_BYTES,
      transcriptBodyBytes: s.TRANSCRIPT_BODY_LIMIT_BYTES,
      jsonDepth: s.JSON_MAX_DEPTH,
      transcriptJsonValues: s.JSON_MAX_VALUES,
      openAiFileBytes: s.OPENAI_COMPAT_FILE_LIMIT_BYTES,
    },
    heavyWorkAtOnce: s.HEAVY_WORK_AT_ONCE,
    rateLimitPerMinute: s.RATE_LIMIT_PER_MINUTE,
    sessionRateLimitPerMinute: s.SESSION_RATE_LIMIT_PER_MINUTE,
    sessionLifetimeMs: s.SESSION_DAYS * 24 * 60 * 60 * 1000,
    tokenLifetimeMs: s.TOKEN_TTL_DAYS * 24 * 60 * 60 * 1000,
    retentionMaxDays: s.RETENTION_MAX_DAYS,
    openAiCompatWaitMs: s.OPENAI_COMPAT_WAIT_SECONDS * 1000,
    live: liveConfigOf(s),
    loginAttemptsPerMinute: s.LOGIN_ATTEMPTS_PER_MINUTE,
    registrationsPerMinute: s.REGISTRATIONS_PER_MINUTE,
    idp: identityProvider(s, publicUrl, problems),
    paymentWebhookSecret: s.PAYMENT_WEBHOOK_SECRET,
    logLevel: s.LOG_LEVEL,
    compression: s.COMPRESSION,
    exportsAheadOfTime: s.EXPORT_AHEAD_OF_TIME,
    metricsEnabled: s.METRICS,
    metricsToken: s.METRICS_TOKEN,
    transcription: transcriptionConfigOf(s, problems),
    webhooks: {
      timeoutMs: s.WEBHOOK_TIMEOUT_SECONDS * 1000,
      retryScheduleMs: s.WEBHOOK_RETRY_SCHEDULE_SECONDS.map((seconds) => seconds * 1000),
      allowedNetworks: s.WEBHOOK_ALLOWED_NETWORKS,
    },
    mediaFetch: {
      maxBytes: s.MEDIA_FETCH_MAX_BYTES,
      timeoutSeconds: s.MEDIA_FETCH_TIMEOUT_SECONDS,
      // Tests serve media from 127.0.0.1; never set this in production (it opens loopback to fetches).
      allowLoopback: s.MEDIA_FETCH_ALLOW_LOOPBACK,
      forbiddenAddresses: s.MEDIA_FETCH_FORBIDDEN_ADDRESSES,
      ytDlp: s.YT_DLP_PATH,
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
