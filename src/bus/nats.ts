/**
 * The cluster profile's bus: one JetStream stream holds every message (file storage, so it survives a server
 * restart); each durable name is a pull consumer that any number of workers share.
 *
 * The stream keeps a message until every durable whose filter matches it has acknowledged (or terminated) it:
 * interest retention, no age limit, and discard-new at its size limit, so a full stream refuses a publish (the
 * relay waits and tries again, its checkpoint behind) instead of dropping work nobody has done. Interest
 * retention drops at once a message no durable wants, so the service creates its durables before its relay
 * publishes (src/service-roles.ts).
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  connect,
  nanos,
  type ConsumerConfig,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
  type StreamConfig,
} from "nats";
import type { Bus, Consumer, ConsumerOptions, MessageHandler } from "./port.ts";
import { DEFAULT_MAX_DELIVER } from "./retry.ts";
import { apiErrorCode, apiErrorDescription, isNotFound, jsError } from "./nats-api.ts";
import { PullLoop, type PullSource } from "./nats-pull-loop.ts";
import { RetiredStream } from "./nats-retired-stream.ts";

export type NatsBusOptions = {
  /** The stream's name (default SCRIBE_WORK). */
  stream?: string;
  /** The subjects callers publish to (default `scribe.>`); the stream stores them under `work.` (see wirePrefix). */
  subjects?: string[];
  /**
   * The most bytes the stream holds (NATS_STREAM_MAX_BYTES; default 1 GiB): messages not yet finished by every
   * durable that wants them. When it is full a publish is refused, and the relay waits; nothing is dropped.
   */
  maxBytes?: number;
  /** The stream an older release wrote, drained and then deleted (default SCRIBE). */
  retiredStream?: string;
};

export const defaultStreamLimits = { maxBytes: 1024 ** 3 };
export const defaultStreamName = "SCRIBE_WORK";
export const retiredStreamName = "SCRIBE";
/**
 * The stream stores `scribe.task.TaskCreated` as `work.scribe.task.TaskCreated`: two streams may not share
 * subjects, and the retired one keeps `scribe.>` while it drains. Callers never see the prefix.
 */
export const wirePrefix = "work.";

/**
 * The stream also holds at most one message per KiB of its size limit, and that is the limit reached first:
 * messages are references of a few hundred bytes (workers/subjects.ts). nats-server counts messages exactly,
 * while before 2.10.5 its discard-new check on bytes left out each message's subject and overhead, so a stream
 * at its byte limit stored one more and then dropped its oldest to make room (nats-server#4771): the very loss
 * discard-new is here to prevent. The byte limit stays, as the hard cap on disk.
 */
export const BYTES_PER_MESSAGE = 1024;

const DUPLICATE_WINDOW_MS = 2 * 60_000;
const DEFAULT_ACK_WAIT_MS = 30_000;
/** How long one pull request waits on the server; messages arriving meanwhile are delivered at once. */
const PULL_EXPIRES_MS = 10_000;

export class NatsBus implements Bus {
  private readonly consumers = new Set<PullLoop>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly maxBytes: number,
    private readonly retired: RetiredStream | null,
  ) {}

  static async connect(url: string, options: NatsBusOptions = {}): Promise<NatsBus> {
    // A service should ride out a server restart, not give up after the default ten attempts.
    const nc = await connect({ servers: url, name: "scribe", maxReconnectAttempts: -1 });
    try {
      return await NatsBus.open(nc, options);
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /** Uses a connection the caller owns (tests close it abruptly to simulate a crashed worker). */
  static async open(nc: NatsConnection, options: NatsBusOptions = {}): Promise<NatsBus> {
    const stream = options.stream ?? defaultStreamName;
    const maxBytes = options.maxBytes ?? defaultStreamLimits.maxBytes;
    const jsm = await nc.jetstreamManager();
    const js = nc.jetstream();
    const subjects = (options.subjects ?? ["scribe.>"]).map(wire);
    await ensureStream(jsm, { name: stream, subjects, max_bytes: maxBytes, max_msgs: Math.max(1, Math.floor(maxBytes / BYTES_PER_MESSAGE)) });
    const retired = await RetiredStream.find(js, jsm, options.retiredStream ?? retiredStreamName, stream);
    return new NatsBus(nc, js, jsm, stream, maxBytes, retired);
  }

  async publish(subject: string, data: Uint8Array, options: { id: string }): Promise<void> {
    if (this.retired) {
      await this.retired.beforeFirstPublish();
      // An older relay published it to the retired stream, where its durables take it: once is enough.
      if (this.retired.published(options.id)) return;
    }
    try {
      // The ack arrives once the stream stored it; a repeat of the id inside the window is acked as a duplicate.
      await this.js.publish(wire(subject), data, { msgID: options.id });
    } catch (error) {
      throw this.refusal(error);
    }
  }

  async consume(options: ConsumerOptions, handler: MessageHandler): Promise<Consumer> {
    const subject = wire(options.subject);
    await ensureConsumer(this.jsm, this.stream, { ...options, subject });
    const live: PullSource = {
      consumer: await this.js.consumers.get(this.stream, options.durable),
      subjectOf: unwire,
      expiresMs: PULL_EXPIRES_MS,
    };
    // The older work first: the retired stream's durable of the same name, until it is drained.
    const retired = await this.retired?.source(options.durable);
    const loop = new PullLoop(
      retired ? [retired, live] : [live],
      options,
      handler,
      () => this.nc.isClosed(),
      () => this.consumers.delete(loop),
    );
    this.consumers.add(loop);
    return loop;
  }

  /** A PING/PONG with the server: while NATS is away (reconnecting) it does not answer, and the caller's timeout says so. */
  async ping(): Promise<void> {
    if (this.nc.isClosed()) throw new Error("the NATS connection is closed");
    await this.nc.flush();
  }

  async queueDepth(durable: string): Promise<number> {
    const retired = (await this.retired?.depth(durable)) ?? 0;
    try {
      const info = await this.jsm.consumers.info(this.stream, durable);
      return retired + info.num_pending + info.num_ack_pending;
    } catch (error) {
      if (isNotFound(error)) return retired;
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
    if (!this.nc.isClosed()) await this.nc.drain();
  }

  /** What the relay logs while it waits: a full stream says so, and which limit. */
  private refusal(error: unknown): Error {
    const description = apiErrorDescription(error);
    if (apiErrorCode(error) === jsError.storeFailed && /maximum (bytes|messages)/.test(description)) {
      return new Error(
        `the stream ${this.stream} is full (${description}; NATS_STREAM_MAX_BYTES=${this.maxBytes}): it takes more once workers finish what it holds`,
        { cause: error },
      );
    }
    return error instanceof Error && description === error.message ? error : new Error(`JetStream refused the message: ${description}`, { cause: error });
  }
}

function wire(subject: string): string {
  return wirePrefix + subject;
}

function unwire(stored: string): string {
  return stored.startsWith(wirePrefix) ? stored.slice(wirePrefix.length) : stored;
}

async function ensureStream(jsm: JetStreamManager, base: Pick<StreamConfig, "name" | "subjects" | "max_bytes" | "max_msgs">): Promise<void> {
  const config: Partial<StreamConfig> = {
    ...base,
    // Kept until every durable that wants it has finished it; none of the limits below drops such a message.
    retention: RetentionPolicy.Interest,
    discard: DiscardPolicy.New,
    max_age: 0,
    storage: StorageType.File,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  };
  try {
    await jsm.streams.add(config); // identical config: the server answers with the existing stream
  } catch (error) {
    if (apiErrorCode(error) !== jsError.streamNameInUse) throw error;
    // Retention cannot change in place (the server refuses); the size limit and subjects can.
    await jsm.streams.update(base.name, config);
  }
}

async function ensureConsumer(jsm: JetStreamManager, stream: string, options: ConsumerOptions): Promise<void> {
  const mutable = {
    filter_subject: options.subject,
    ack_wait: nanos(options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS),
    max_deliver: options.maxDeliver ?? DEFAULT_MAX_DELIVER,
  };
  const config: Partial<ConsumerConfig> = {
    ...mutable,
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    // A durable made now (a new kind of worker after an upgrade) starts with what is published from now
    // on, not with the stream's history. The service creates its durables before its relay publishes.
    deliver_policy: DeliverPolicy.New,
  };
  try {
    await jsm.consumers.add(stream, config);
  } catch (error) {
    if (!jsError.consumerExists.includes(apiErrorCode(error) ?? 0)) throw error;
    await jsm.consumers.update(stream, options.durable, mutable);
  }
}
