import { logger } from "../logging/logger.ts";

/** How a warning is written (pino's `warn`, or a test's collector). */
export type Warn = (fields: Record<string, unknown>, message: string) => void;

const defaultWarn: Warn = (fields, message) => logger("erasure").warn(fields, message);

/**
 * Events whose personal fields were stored in the clear because their stream named no owner, so no data key could
 * be chosen (key-scopes.ts): never silent, since those fields cannot be erased later. Counted by event type, and
 * logged at warn the first time of each type (once per type and process: a steady stream of them is one line, and
 * the count says how many).
 */
export class UnscopedFields {
  private readonly counts = new Map<string, number>();

  constructor(private readonly warn: Warn = defaultWarn) {}

  /** One event of `eventType`, on `streamName`, was stored with its personal fields in the clear. */
  note(streamName: string, eventType: string): void {
    const count = (this.counts.get(eventType) ?? 0) + 1;
    this.counts.set(eventType, count);
    if (count === 1)
      this.warn(
        { eventType, stream: streamName },
        "personal fields stored in the clear: the stream names no owner, so no data key can erase them (further events of this type are counted, not logged)",
      );
  }

  /** How many events of each type were stored so. */
  byType(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.counts);
  }

  /** How many in all. */
  total(): number {
    let total = 0;
    for (const count of this.counts.values()) total += count;
    return total;
  }
}
