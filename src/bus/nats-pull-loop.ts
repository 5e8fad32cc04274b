import type { ConsumerMessages, Consumer as JsConsumer, JsMsg } from "nats";
import type { BusMessage, Consumer, ConsumerOptions, MessageHandler } from "./port.ts";
import { DEFAULT_MAX_DELIVER, retryDelayMs } from "./retry.ts";
import { logger } from "../logging/logger.ts";

const log = logger("bus");

const PULL_RETRY_MS = 1_000;

/** One durable a loop pulls from. */
export type PullSource = {
  consumer: JsConsumer;
  /** The subject callers know, from the one the stream stored (streams may keep subjects under a prefix). */
  subjectOf(stored: string): string;
  /** How long one pull request waits on the server; messages arriving meanwhile are delivered at once. */
  expiresMs: number;
  /**
   * For a source that ends (a retired stream's durable): answers true once it holds nothing for anyone, and the
   * loop goes on with the next source. Asked only while this loop has nothing of it in hand.
   */
  drained?: () => Promise<boolean>;
};

/**
 * Pulls at most `concurrency` messages at a time: each request asks only for the free slots, so a
 * message never waits in a client buffer while its ack_wait runs out. Sources are taken one after the
 * other: a retired stream's durable until it is drained, then the live one, so the older work comes first
 * and the concurrency stays the one asked for.
 */
export class PullLoop implements Consumer {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxDeliver: number;
  private readonly concurrency: number;
  private batch: ConsumerMessages | undefined;
  private slotFreed: (() => void) | undefined;
  private stopping = false;
  private readonly running: Promise<void>;

  constructor(
    private readonly sources: PullSource[],
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
      const source = this.sources[0]!;
      try {
        this.batch = await source.consumer.fetch({ max_messages: free, expires: source.expiresMs });
        if (this.stopping) this.batch.stop(); // stop() ran before the batch existed to be stopped
        for await (const msg of this.batch) {
          // Handed back at once so another worker of this durable takes it instead of waiting out ack_wait.
          if (this.stopping) msg.nak();
          else this.handle(msg, source);
        }
      } catch (error) {
        if (this.stopping || this.connectionClosed()) break;
        // A retired durable another process found drained has been deleted: that is the end of it, not a failure.
        if (await this.movedOn(source)) continue;
        log.warn({ durable: this.options.durable, err: error }, "pulling failed; retrying");
        await Bun.sleep(PULL_RETRY_MS);
        continue;
      } finally {
        this.batch = undefined;
      }
      await this.movedOn(source);
    }
  }

  /** Goes on with the next source when this one is drained. */
  private async movedOn(source: PullSource): Promise<boolean> {
    if (!source.drained || this.sources.length < 2 || this.inFlight.size > 0) return false;
    if (!(await source.drained().catch(() => false))) return false;
    this.sources.shift();
    return true;
  }

  private handle(msg: JsMsg, source: PullSource): void {
    const message: BusMessage = {
      subject: source.subjectOf(msg.subject),
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
      // JetStream would stop here anyway (max_deliver); term() says so now instead of after ack_wait, and lets an
      // interest stream drop the message (one that only ran out of deliveries would stay in it for good).
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
