import { namedActor, withUpcasting } from "./core/upcasting.ts";
import { taskUpcasters } from "./tasks/upcasters.ts";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { EventStore } from "./core/event-store.ts";
import type { DocumentStore } from "./readmodels/port.ts";
import type { Bus } from "./bus/port.ts";
import type { BlobStore } from "./blobs/port.ts";
import { SqliteEventStore } from "./eventstore/sqlite.ts";
import { applicationStreamPrefixes } from "./application-streams.ts";
import { EventStoreDbEventStore } from "./eventstore/eventstoredb.ts";
import { EmbeddedDocumentStore, type EmbeddedUpkeep } from "./readmodels/embedded.ts";
import { inTurnShare } from "./core/turn-share.ts";
import { WalCheckpoints } from "./core/wal-checkpoints.ts";
import { MongoDocumentStore } from "./readmodels/mongodb.ts";
import { InProcessBus } from "./bus/in-process.ts";
import { NatsBus } from "./bus/nats.ts";
import { FileBlobStore } from "./blobs/filesystem.ts";
import { S3BlobStore } from "./blobs/s3.ts";
import { stateCacheOf } from "./core/state-cache.ts";
import { DocumentSnapshots } from "./core/document-snapshots.ts";
import { TranscriptStore } from "./tasks/transcripts.ts";
import { observingAppends, type AppendObserver } from "./core/append-observers.ts";
import type { DataKeyStore } from "./erasure/data-keys.ts";
import { openDataKeyStore } from "./erasure/open-data-keys.ts";
import { protectEvents, type ErasedFieldsObserver } from "./erasure/protected-event-store.ts";

/** One adapter per port, chosen by configuration: a URL set means the cluster adapter, none the embedded one. */
export type Adapters = {
  eventStore: EventStore;
  documents: DocumentStore;
  bus: Bus;
  blobs: BlobStore;
  /** Transcripts as immutable blobs (events carry references); one per process, for its cache. */
  transcripts: TranscriptStore;
  /** The data keys that encrypt events' personal fields (src/erasure): destroying one erases what it encrypted. */
  dataKeys: DataKeyStore;
  /** Told of every batch this process appends (the events-appended metric). */
  appendObservers: Set<AppendObserver>;
  secret: string;
  describe(): string;
  close(): Promise<void>;
};

/**
 * The secret that signs embedded storage URLs: SIGNING_SECRET when set (several API processes must
 * share it), else one generated on first start and kept under DATA_DIR.
 */
export function signingSecret(config: Pick<Config, "dataDir" | "signingSecret">): string {
  if (config.signingSecret) return config.signingSecret;
  const file = join(config.dataDir, "signing-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * The event store, read through the upcasters: events stored in older shapes come out in the current ones. Under them,
 * personal fields are encrypted on append and decrypted on read (src/erasure/protected-event-store.ts) with `dataKeys`,
 * or with a key store of its own, closed with it (a command-line tool's). `onErased` is told of fields whose key is gone.
 */
export async function openEventStore(config: Config, dataKeys?: DataKeyStore, onErased?: ErasedFieldsObserver): Promise<EventStore> {
  mkdirSync(config.dataDir, { recursive: true });
  // In a shared EventStoreDB the relay and projections read only this application's streams.
  const stored = config.eventStoreUrl
    ? new EventStoreDbEventStore(config.eventStoreUrl, { streamPrefixes: applicationStreamPrefixes })
    : new SqliteEventStore(join(config.dataDir, "events.sqlite"));
  const keys = dataKeys ?? (await openDataKeyStore(config));
  return withUpcasting(protectEvents(stored, keys, { closesKeys: dataKeys === undefined, onErased }), [namedActor, ...taskUpcasters]);
}

export async function openDocumentStore(config: Config): Promise<DocumentStore> {
  mkdirSync(config.dataDir, { recursive: true });
  return config.mongodbUrl
    ? new MongoDocumentStore(config.mongodbUrl, config.mongodbDatabase)
    : new EmbeddedDocumentStore(join(config.dataDir, "readmodels.sqlite"), embeddedUpkeep);
}

/** The service's upkeep of the embedded read models: merge steps in the turn share, WAL checkpoints on a thread. */
export const embeddedUpkeep: EmbeddedUpkeep = {
  inBackground: inTurnShare,
  checkpoints: (path, fallBack) => new WalCheckpoints(path, fallBack),
};

/** The blob store alone: for the CLIs whose projections read transcripts (replay, admin). */
export function openBlobStore(config: Config, secret = signingSecret(config)): BlobStore {
  mkdirSync(config.dataDir, { recursive: true });
  return config.s3 ? new S3BlobStore(config.s3) : new FileBlobStore({ root: join(config.dataDir, "blobs"), publicUrl: config.publicUrl, secret });
}

export async function openAdapters(config: Config): Promise<Adapters> {
  mkdirSync(config.dataDir, { recursive: true });
  const secret = signingSecret(config);
  const appendObservers = new Set<AppendObserver>();
  const dataKeys = await openDataKeyStore(config);
  const eventStore = observingAppends(await openEventStore(config, dataKeys), appendObservers);
  const documents = await openDocumentStore(config);
  // Commands on long streams (an account's) start from a snapshot kept beside the read models.
  stateCacheOf(eventStore).useSnapshots(new DocumentSnapshots(documents));
  const bus: Bus = config.natsUrl ? await NatsBus.connect(config.natsUrl, config.natsStream) : new InProcessBus();
  const blobs = openBlobStore(config, secret);
  return {
    eventStore,
    documents,
    bus,
    blobs,
    transcripts: new TranscriptStore(blobs),
    dataKeys,
    appendObservers,
    secret,
    describe: () =>
      [
        `event store: ${config.eventStoreUrl ? "EventStoreDB" : "SQLite"}`,
        `read models: ${config.mongodbUrl ? "MongoDB" : "embedded"}`,
        `bus: ${config.natsUrl ? "NATS JetStream" : "in-process"}`,
        `blobs: ${config.s3 ? "S3" : "files"}`,
      ].join(", "),
    async close() {
      await bus.close();
      await blobs.close();
      await documents.close();
      await eventStore.close();
      await dataKeys.close();
    },
  };
}
