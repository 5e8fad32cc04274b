import { flag, integer, optionalText, secret, text, url } from "../setting.ts";

/** The ports' cluster adapters: a URL set picks the cluster adapter, none the embedded one. */
export const storageSettings = {
  EVENTSTORE_URL: url({
    group: "event store",
    protocols: ["esdb", "esdb+discover"],
    shownDefault: "unset: SQLite in DATA_DIR",
    description: "EventStoreDB's connection string, e.g. esdb://localhost:2113?tls=false.",
  }),
  MONGODB_URL: url({
    group: "read models",
    protocols: ["mongodb", "mongodb+srv"],
    shownDefault: "unset: SQLite in DATA_DIR",
    description: "MongoDB's connection string for the read models.",
  }),
  MONGODB_DATABASE: text({ group: "read models", fallback: "scribe", description: "The MongoDB database the read models live in." }),
  NATS_URL: url({
    group: "bus",
    protocols: ["nats", "tls"],
    shownDefault: "unset: in-process bus",
    description: "The NATS server (with JetStream) that carries the relay's messages to the workers.",
  }),
  // Retired: an age limit drops work no worker has done. Still read (and checked) so that an environment that sets it
  // starts as before; nothing uses its value.
  NATS_STREAM_MAX_AGE_SECONDS: integer({
    group: "bus",
    min: 60,
    max: 10 * 365 * 24 * 3600,
    fallback: 7 * 24 * 3600,
    shownDefault: "ignored",
    description: "Retired, ignored: a message now stays in the stream until every worker that wants it has finished it, however old.",
  }),
  NATS_STREAM_MAX_BYTES: integer({
    group: "bus",
    min: 1024 * 1024,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 1024 ** 3,
    shownDefault: "1073741824 (1 GiB)",
    description:
      "The most the JetStream stream holds of work not yet finished by every worker that wants it (and one message per KiB of it). When full, the " +
      "relay waits; nothing is dropped.",
  }),
  S3_ENDPOINT: url({
    group: "blobs",
    protocols: ["http", "https"],
    shownDefault: "unset: files in DATA_DIR/blobs",
    description: "Where the service reaches S3; needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.",
  }),
  S3_PUBLIC_ENDPOINT: url({
    group: "blobs",
    protocols: ["http", "https"],
    shownDefault: "S3_ENDPOINT",
    description: "Where clients reach S3, when not at S3_ENDPOINT: presigned URLs are signed for it.",
  }),
  S3_BUCKET: optionalText({ group: "blobs", description: "The bucket that holds media, transcripts and exports." }),
  S3_REGION: text({ group: "blobs", fallback: "us-east-1", description: "The region requests are signed for." }),
  S3_ACCESS_KEY_ID: secret({ group: "blobs", shownDefault: "AWS_ACCESS_KEY_ID", description: "S3's access key id." }),
  S3_SECRET_ACCESS_KEY: secret({ group: "blobs", shownDefault: "AWS_SECRET_ACCESS_KEY", description: "S3's secret access key." }),
  AWS_ACCESS_KEY_ID: secret({ group: "blobs", description: "Used when S3_ACCESS_KEY_ID is unset." }),
  AWS_SECRET_ACCESS_KEY: secret({ group: "blobs", description: "Used when S3_SECRET_ACCESS_KEY is unset." }),
  S3_FORCE_PATH_STYLE: flag({
    group: "blobs",
    words: ["true", "false"],
    fallback: true,
    description: "Bucket in the path (MinIO, radosgw) rather than in the host name.",
  }),
} as const;
