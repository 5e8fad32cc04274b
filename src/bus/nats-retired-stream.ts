/**
 * The stream an older release wrote (SCRIBE: limits retention, discard-old, so its limits could drop work no
 * worker had done). nats-server cannot change a stream's retention in place, so the bus writes to a new stream
 * and empties this one without losing or repeating anything:
 * - each worker first drains its durable here (same name, same acknowledgements so far), then takes new work;
 * - the first publish of this release seals it: an older relay still running is refused from then on (its
 *   checkpoint stays, nothing is lost), so what the durables hold here is final and "drained" stays true;
 * - the ids of its last messages are kept, so this release's relay, which starts again from its checkpoint, does
 *   not publish a second time what the older relay published just before;
 * - a durable found drained (nothing waiting, nothing unacknowledged) is deleted, and the stream once no durable
 *   holds anything.
 */
import type { JetStreamClient, JetStreamManager, StreamConfig, StreamInfo } from "nats";
import { apiErrorCode, isNotFound, jsError } from "./nats-api.ts";
import type { PullSource } from "./nats-pull-loop.ts";
import { logger } from "../logging/logger.ts";

const log = logger("bus");

/**
 * How many of its last messages' ids are kept. The relay's checkpoint lags what it published by the events not
 * yet settled, at most its 10,000 in flight (workers/relay.ts); twice that leaves room for a checkpoint save lost.
 */
const TAIL_IDS = 20_000;
/** A drain pull waits briefly, so a drained durable is noticed within a second or so. */
const DRAIN_PULL_EXPIRES_MS = 1_000;

export class RetiredStream {
  /** The ids of the messages it ended with: the relay skips these. */
  private readonly tail = new Set<string>();
  private sealing: Promise<void> | null = null;
  private sealed: boolean;
  private gone = false;
  /** The durables this process drains (a durable with work that none of them is gets a warning). */
  private readonly drainingHere = new Set<string>();

  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly name: string,
    readonly successor: string,
    info: StreamInfo,
  ) {
    this.sealed = info.config.sealed === true;
  }

  /** The retired stream, when there is one to empty. */
  static async find(js: JetStreamClient, jsm: JetStreamManager, name: string, successor: string): Promise<RetiredStream | null> {
    if (name === successor) return null;
    try {
      const info = await jsm.streams.info(name);
      log.warn(
        { stream: name, messages: info.state.messages, successor },
        "retired stream found: its durables are drained before new work; the relay publishes to the new stream",
      );
      return new RetiredStream(js, jsm, name, successor, info);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Whether `id` was published to this stream already (by an older relay, before the seal). */
  published(id: string): boolean {
    return this.tail.has(id);
  }

  /** Seals it and reads its last ids, once, before this release's first publish. */
  beforeFirstPublish(): Promise<void> {
    // A failure (the server away) is tried again by the next publish.
    this.sealing ??= this.seal().catch((error: unknown) => {
      this.sealing = null;
      throw error;
    });
    return this.sealing;
  }

  /** The durable's backlog here (0 when it or the stream is gone), for the queue-depth metric. */
  async depth(durable: string): Promise<number> {
    if (this.gone) return 0;
    try {
      const info = await this.jsm.consumers.info(this.name, durable);
      return info.num_pending + info.num_ack_pending;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.noteGone(error); // deleted by another process: no need to ask again
      return 0;
    }
  }

  /** The durable `durable` here, to pull before the live one; null when this stream has none of that name. */
  async source(durable: string): Promise<PullSource | null> {
    if (this.gone) return null;
    try {
      const info = await this.jsm.consumers.info(this.name, durable);
      this.drainingHere.add(durable);
      log.info({ stream: this.name, durable, pending: info.num_pending, unacknowledged: info.num_ack_pending }, "draining a durable of the retired stream");
      return {
        consumer: await this.js.consumers.get(this.name, durable),
        subjectOf: (stored) => stored,
        expiresMs: DRAIN_PULL_EXPIRES_MS,
        drained: () => this.drained(durable),
      };
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.noteGone(error);
      return null;
    }
  }

  private noteGone(error: unknown): void {
    if (apiErrorCode(error) === jsError.streamNotFound) this.gone = true;
  }

  private async seal(): Promise<void> {
    try {
      const info = await this.jsm.streams.info(this.name);
      if (!info.config.sealed) {
        // Sealing is an update the client's type leaves out (it cannot be undone, so it is not "configuration").
        const sealedConfig: Partial<StreamConfig> = { ...info.config, sealed: true };
        await this.jsm.streams.update(this.name, sealedConfig);
        log.warn({ stream: this.name, successor: this.successor }, "retired stream sealed: nothing more can be published to it");
      }
      this.sealed = true;
      await this.readTail();
      // Emptied already (a restart after the last drain, or after an operator removed a durable no worker takes).
      await this.deleteWhenEmpty();
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.gone = true;
    }
  }

  private async readTail(): Promise<void> {
    const { first_seq: first, last_seq: last, messages } = (await this.jsm.streams.info(this.name)).state;
    if (messages === 0) return;
    // An ordered consumer reads without acknowledging, and goes away by itself when idle.
    const reader = await this.js.consumers.get(this.name, { opt_start_seq: Math.max(first, last - TAIL_IDS + 1) });
    for (let more = true; more; ) {
      const batch = await reader.fetch({ max_messages: 1_000, expires: 2_000 });
      let got = 0;
      for await (const msg of batch) {
        got++;
        const id = msg.headers?.get("Nats-Msg-Id");
        if (id) this.tail.add(id);
        if (msg.info.pending === 0 || msg.seq >= last) {
          more = false;
          batch.stop();
        }
      }
      if (got === 0) more = false;
    }
  }

  /** True once `durable` holds nothing here for anyone: then it is deleted, and the stream when it was the last with work. */
  private async drained(durable: string): Promise<boolean> {
    if (this.gone) return true;
    try {
      // Only a sealed stream is final: before that an older relay may still add work.
      if (!this.sealed) this.sealed = (await this.jsm.streams.info(this.name)).config.sealed === true;
      if (!this.sealed) return false;
      const info = await this.jsm.consumers.info(this.name, durable);
      if (info.num_pending + info.num_ack_pending > 0) return false;
      await this.jsm.consumers.delete(this.name, durable).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      log.info({ stream: this.name, durable }, "durable of the retired stream drained and deleted");
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.noteGone(error); // another process deleted it, or the whole stream
    }
    this.drainingHere.delete(durable);
    await this.deleteWhenEmpty();
    return true;
  }

  private async deleteWhenEmpty(): Promise<void> {
    if (this.gone) return;
    try {
      const busy: { durable: string; messages: number }[] = [];
      for await (const info of this.jsm.consumers.list(this.name)) {
        const messages = info.num_pending + info.num_ack_pending;
        // Ordered readers (no durable name) hold nothing for anyone.
        if (info.config.durable_name && messages > 0) busy.push({ durable: info.config.durable_name, messages });
      }
      if (busy.length === 0) {
        await this.jsm.streams.delete(this.name);
        this.gone = true;
        log.warn({ stream: this.name, successor: this.successor }, "retired stream deleted: every durable on it was drained");
        return;
      }
      const nobodyHere = busy.filter((b) => !this.drainingHere.has(b.durable));
      if (nobodyHere.length > 0 && this.drainingHere.size === 0) {
        log.warn(
          { stream: this.name, durables: nobodyHere },
          "retired stream kept: durables no worker of this release takes still hold messages; delete them (nats consumer rm) once their work is not wanted",
        );
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.gone = true;
    }
  }
}
