/**
 * The cluster profile's bus: one JetStream stream holds every message (file storage, so it survives
 * a server restart); each durable name is a pull consumer that any number of workers share.
 */
import {
  AckPolicy,
  DeliverPolicy,
  NatsError,
  StorageType,
  connect,
  nanos,
  type ConsumerConfig,
  type ConsumerMessages,
  type Consumer as JsConsumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  type StreamConfig,
} from "nats";
import type { Bus, BusMessage, Consumer, ConsumerOptions, MessageHandler } from "./port.ts";
import { DEFAULT_MAX_DELIVER, retryDelayMs } from "./retry.ts";
import { logger } from "../logging/logger.ts";

const log = logger("bus");

export type NatsBusOptions = {
  stream?: string;
  subjects?: string[];
  /** Messages older than this leave the stream (NATS_STREAM_MAX_AGE_SECONDS; default 7 days). */
  maxAgeMs?: number;
  /** The stream keeps at most this many bytes, dropping the oldest (NATS_STREAM_MAX_BYTES; default 1 GiB). */
  maxBytes?: number;
};

export const defaultStreamLimits = { maxAgeMs: 7 * 24 * 3600 * 1000, maxBytes: 1024 ** 3 };

const DUPLICATE_WINDOW_MS = 2 * 60_000;
const DEFAULT_ACK_WAIT_MS = 30_000;
/** How long one pull request waits on the server; messages arriving meanwhile are delivered at once. */
const PULL_EXPIRES_MS = 10_000;
const PULL_RETRY_MS = 1_000;
/**
 * JetStream API error codes for "exists with a different configuration". Servers before 2.10 update a
 * durable in place on create; 2.10+ answer 10148 instead, so we update explicitly.
 */
const STREAM_NAME_IN_USE = 10058;
const CONSUMER_ALREADY_EXISTS = [10013, 10148];

export class NatsBus implements Bus {
  private readonly consumers = new Set<PullLoop>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
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
    const stream = options.stream ?? "SCRIBE";
    const jsm = await nc.jetstreamManager();
    const limits = { ...defaultStreamLimits, ...options };
    // Bounded: the log is the record, the stream only carries work to the workers (a message is a few
    // hundred bytes, a reference to its event), so it needs to hold what workers have not taken yet.
    await ensureStream(jsm, { name: stream, subjects: options.subjects ?? ["scribe.>"], max_age: nanos(limits.maxAgeMs), max_bytes: limits.maxBytes });
    return new NatsBus(nc, nc.jetstream(), jsm, stream);
  }

  async publish(subject: string, data: Uint8Array, options: { id: string }): Promise<void> {
    // The ack arrives once the stream stored it; a repeat of the id inside the window is acked as a duplicate.
    await this.js.publish(subject, data, { msgID: options.id });
  }

  async consume(options: ConsumerOptions, handler: MessageHandler): Promise<Consumer> {
    await ensureConsumer(this.jsm, this.stream, options);
    const source = await this.js.consumers.get(this.stream, options.durable);
    const loop = new PullLoop(
      source,
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
    try {
      const info = await this.jsm.consumers.info(this.stream, durable);
      return info.num_pending + info.num_ack_pending;
    } catch (error) {
      if (apiErrorCode(error) === CONSUMER_NOT_FOUND) return 0;
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}

async function ensureStream(jsm: JetStreamManager, base: Pick<StreamConfig, "name" | "subjects" | "max_age" | "max_bytes">): Promise<void> {
  const config: Partial<StreamConfig> = { ...base, storage: StorageType.File, duplicate_window: nanos(DUPLICATE_WINDOW_MS) };
  try {
    await jsm.streams.add(config); // identical config: the server answers with the existing stream
  } catch (error) {
    if (apiErrorCode(error) !== STREAM_NAME_IN_USE) throw error;
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
    if (!CONSUMER_ALREADY_EXISTS.includes(apiErrorCode(error) ?? 0)) throw error;
    await jsm.consumers.update(stream, options.durable, mutable);
  }
}

/** JetStream's JSConsumerNotFoundErr. */
const CONSUMER_NOT_FOUND = 10014;

function apiErrorCode(error: unknown): number | undefined {
  return error instanceof NatsError ? error.api_error?.err_code : undefined;
}

/**
 * Pulls at most `concurrency` messages at a time: each request asks only for the free slots, so a
 * message never waits in a client buffer while its ack_wait runs out.
 */
class PullLoop implements Consumer {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxDeliver: number;
  private readonly concurrency: number;
  private batch: ConsumerMessages | undefined;
  private slotFreed: (() => void) | undefined;
  private stopping = false;
  private readonly running: Promise<void>;

  constructor(
    private readonly source: JsConsumer,
    private readonly options: ConsumerOptions,
    private readonly handler: MessageHandler,
    private readonly connectionClosed: () => boolean,
    private readonly onStopped: () => void,
  ) {
    this.maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
    this.concurrency = Math.max(1, options.concurrency);
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.batch?.stop();
    this.slotFreed?.();
    await this.running;
    await Promise.all(this.inFlight);
    this.onStopped();
  }

  private async run(): Promise<void> {
    while (!this.stopping && !this.connectionClosed()) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      try {
        this.batch = await this.source.fetch({ max_messages: free, expires: PULL_EXPIRES_MS });
        if (this.stopping) this.batch.stop(); // stop() ran before the batch existed to be stopped
        for await (const msg of this.batch) {
          // Handed back at once so another worker of this durable takes it instead of waiting out ack_wait.
          if (this.stopping) msg.nak();
          else this.handle(msg);
        }
      } catch (error) {
        if (this.stopping || this.connectionClosed()) break;
        log.warn({ durable: this.options.durable, err: error }, "pulling failed; retrying");
        await Bun.sleep(PULL_RETRY_MS);
      } finally {
        this.batch = undefined;
      }
    }
  }

  private handle(msg: JsMsg): void {
    const message: BusMessage = {
      subject: msg.subject,
      id: msg.headers?.get("Nats-Msg-Id") || `${msg.info.stream}:${msg.seq}`,
      data: msg.data,
      deliveryCount: msg.info.redeliveryCount,
      inProgress: () => msg.working(),
    };
    const work: Promise<void> = Promise.resolve()
      .then(() => this.handler(message))
      .then(
        () => msg.ack(),
        (error: unknown) => this.failed(msg, message, error),
      )
      .finally(() => {
        this.inFlight.delete(work);
        this.slotFreed?.();
        this.slotFreed = undefined;
      });
    this.inFlight.add(work);
  }

  private failed(msg: JsMsg, message: BusMessage, error: unknown): void {
    if (message.deliveryCount >= this.maxDeliver) {
      // JetStream would stop here anyway (max_deliver); term() says so now instead of after ack_wait.
      log.error(
        { durable: this.options.durable, subject: message.subject, messageId: message.id, deliveryCount: message.deliveryCount, err: error },
        "gave up on a message",
      );
      msg.term();
      return;
    }
    msg.nak(retryDelayMs(message.deliveryCount));
  }
}
