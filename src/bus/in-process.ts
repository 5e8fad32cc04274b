/**
 * The embedded profile's bus: no store, no network. Durable groups live as long as the process;
 * publish() settles when every matching group has handled the message, which is what lets the
 * relay keep its checkpoint behind unsettled messages (see port.ts).
 */
import { subjectMatches, type Bus, type BusMessage, type Consumer, type ConsumerOptions, type MessageHandler } from "./port.ts";
import { DEFAULT_MAX_DELIVER, retryDelayMs } from "./retry.ts";
import { logger } from "../logging/logger.ts";

const log = logger("bus");

/** Like JetStream's duplicate window: an id seen this recently (or among the last N) is dropped. */
const DUPLICATE_WINDOW_MS = 2 * 60_000;
const DUPLICATE_WINDOW_MAX_IDS = 10_000;

type Delivery = { subject: string; id: string; data: Uint8Array; deliveryCount: number; settle(): void };

/** One durable name: members share its queue, so each message reaches one member of the group. */
class Group {
  readonly queue: Delivery[] = [];
  readonly members: Member[] = [];
  private turn = 0;
  private retrying = 0;

  constructor(
    public filter: string,
    public maxDeliver: number,
    private readonly timers: Set<ReturnType<typeof setTimeout>>,
  ) {}

  offer(delivery: Delivery): void {
    this.queue.push(delivery);
    this.pump();
  }

  /** Hands queued messages to members with a free slot, taking turns so the work is split. */
  pump(): void {
    while (this.queue.length > 0) {
      const free = this.members.filter((m) => m.hasFreeSlot());
      if (free.length === 0) return;
      const member = free[this.turn++ % free.length]!;
      member.run(this.queue.shift()!);
    }
  }

  /** Queued, plus in the members' hands, plus waiting out a retry delay. */
  depth(): number {
    return this.queue.length + this.retrying + this.members.reduce((sum, member) => sum + member.inFlight, 0);
  }

  failed(delivery: Delivery, error: unknown, durable: string): void {
    if (delivery.deliveryCount >= this.maxDeliver) {
      log.error({ durable, subject: delivery.subject, messageId: delivery.id, deliveryCount: delivery.deliveryCount, err: error }, "gave up on a message");
      delivery.settle();
      return;
    }
    this.retrying++;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.retrying--;
      this.offer({ ...delivery, deliveryCount: delivery.deliveryCount + 1 });
    }, retryDelayMs(delivery.deliveryCount));
    this.timers.add(timer);
  }
}

class Member implements Consumer {
  private readonly active = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly group: Group,
    private readonly durable: string,
    private readonly concurrency: number,
    private readonly handler: MessageHandler,
  ) {}

  get inFlight(): number {
    return this.active.size;
  }

  hasFreeSlot(): boolean {
    return !this.stopped && this.active.size < this.concurrency;
  }

  run(delivery: Delivery): void {
    const message: BusMessage = {
      subject: delivery.subject,
      id: delivery.id,
      data: delivery.data,
      deliveryCount: delivery.deliveryCount,
      // Nothing here redelivers a message while its handler runs, so there is no timer to reset.
      inProgress: () => {},
    };
    const work: Promise<void> = Promise.resolve()
      .then(() => this.handler(message))
      .then(
        () => delivery.settle(),
        (error: unknown) => this.group.failed(delivery, error, this.durable),
      )
      .finally(() => {
        this.active.delete(work);
        this.group.pump();
      });
    this.active.add(work);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const index = this.group.members.indexOf(this);
    if (index >= 0) this.group.members.splice(index, 1);
    await Promise.all(this.active);
  }
}

export class InProcessBus implements Bus {
  /** Groups outlive their members, like a durable consumer: queued messages wait for the next one. */
  private readonly groups = new Map<string, Group>();
  private readonly recent = new Map<string, { at: number; settled: Promise<void> }>();
  private readonly unsettled = new Set<(error: Error) => void>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private closed = false;

  publish(subject: string, data: Uint8Array, options: { id: string }): Promise<void> {
    if (this.closed) return Promise.reject(new Error("bus is closed"));
    const now = Date.now();
    this.forgetOldIds(now);
    const seen = this.recent.get(options.id);
    if (seen) return seen.settled;

    const groups = [...this.groups.values()].filter((g) => subjectMatches(g.filter, subject));
    const settled =
      groups.length === 0
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            let left = groups.length;
            this.unsettled.add(reject);
            const settle = () => {
              if (--left > 0) return;
              this.unsettled.delete(reject);
              resolve();
            };
            for (const group of groups) group.offer({ subject, id: options.id, data, deliveryCount: 1, settle });
          });
    this.recent.set(options.id, { at: now, settled });
    return settled;
  }

  async consume(options: ConsumerOptions, handler: MessageHandler): Promise<Consumer> {
    if (this.closed) throw new Error("bus is closed");
    const maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
    let group = this.groups.get(options.durable);
    if (group) {
      // The latest consumer's settings win, as a JetStream consumer update would.
      group.filter = options.subject;
      group.maxDeliver = maxDeliver;
    } else {
      group = new Group(options.subject, maxDeliver, this.timers);
      this.groups.set(options.durable, group);
    }
    const member = new Member(group, options.durable, Math.max(1, options.concurrency), handler);
    group.members.push(member);
    group.pump();
    return member;
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error("the bus is closed");
  }

  async queueDepth(durable: string): Promise<number> {
    return this.groups.get(durable)?.depth() ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.groups.values()].flatMap((g) => [...g.members].map((m) => m.stop())));
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // Nobody will handle these any more: the publisher must not count them as delivered.
    for (const reject of this.unsettled) reject(new Error("bus closed before the message was handled"));
    this.unsettled.clear();
  }

  /** Map iteration follows insertion order, so the oldest ids are always at the front. */
  private forgetOldIds(now: number): void {
    for (const [id, entry] of this.recent) {
      if (this.recent.size <= DUPLICATE_WINDOW_MAX_IDS && now - entry.at < DUPLICATE_WINDOW_MS) return;
      this.recent.delete(id);
    }
  }
}
