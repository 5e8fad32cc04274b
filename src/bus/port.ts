/**
 * The message bus that carries stored events from the relay to the workers. Both adapters
 * (in-process, NATS JetStream) pass test/contracts/bus.contract.ts.
 *
 * Subjects are dot-separated tokens (`scribe.task.TaskCreated`); consumer filters may use the NATS
 * wildcards `*` (one token) and `>` (the rest).
 */
export type BusMessage = {
  subject: string;
  /** The publisher's message id (the event id): a second publish with the same id is dropped. */
  id: string;
  data: Uint8Array;
  /** 1 on the first delivery, then 2, 3, ... on redeliveries. */
  deliveryCount: number;
  /** Tells the bus the handler is still working, so a long job is not redelivered meanwhile. */
  inProgress(): void;
};

export type ConsumerOptions = {
  /** Durable name: consumers with the same name share the work and survive restarts. */
  durable: string;
  /** One subject filter (wildcards allowed). */
  subject: string;
  /** How many messages this process handles at once. */
  concurrency: number;
  /** How long a delivered message may stay unacknowledged before it is delivered again. */
  ackWaitMs?: number;
  /** Deliveries after which a message that keeps failing is dropped (and logged). */
  maxDeliver?: number;
};

/** A handler that returns acknowledges the message; one that throws asks for redelivery. */
export type MessageHandler = (message: BusMessage) => Promise<void>;

export type Consumer = {
  /** Stops taking new messages and waits for the ones in hand. */
  stop(): Promise<void>;
};

export interface Bus {
  /**
   * Resolves once the bus has taken responsibility for the message: NATS when JetStream has stored it;
   * in-process when every consumer whose filter matches has acknowledged it (there is no store to
   * survive a crash, so the relay keeps its checkpoint behind unsettled messages instead).
   */
  publish(subject: string, data: Uint8Array, options: { id: string }): Promise<void>;
  consume(options: ConsumerOptions, handler: MessageHandler): Promise<Consumer>;
  /** Resolves when the bus answers now (a round trip to the server); rejects when it is closed. For readiness. */
  ping(): Promise<void>;
  /**
   * The messages a durable has yet to finish: waiting for delivery, plus delivered and not yet acknowledged
   * (0 for a durable that does not exist). For the queue-depth metric.
   */
  queueDepth(durable: string): Promise<number>;
  close(): Promise<void>;
}

/** Whether `subject` matches the NATS-style `filter`. */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split(".");
  const s = subject.split(".");
  for (let i = 0; i < f.length; i++) {
    if (f[i] === ">") return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== "*" && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}
