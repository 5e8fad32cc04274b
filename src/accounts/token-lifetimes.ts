import { bySystem } from "../core/event.ts";
import { WrongExpectedRevisionError, type EventStore } from "../core/event-store.ts";

/** The one event of the `tokens-lifetime` stream: from when access tokens had a lifetime. */
export type TokenLifetimeEvent = { type: "TokenLifetimesStarted"; data: { startedAt: string } };

export const tokenLifetimeStream = "tokens-lifetime";

const dayMs = 24 * 60 * 60 * 1000;
/** Recent uses kept per process, at most (a token used today takes one entry until the read model shows its use). */
const mostRemembered = 10_000;

/**
 * Access tokens last TOKEN_TTL_DAYS after their last use. A token's end is derived from events, so it survives a
 * replay of the read models and does not depend on which replica answered:
 * - its lifetime counts from its last recorded use (AccessTokenUsed), else from its issue (AccessTokenIssued);
 * - a use is recorded at most once a day per token (every tenth of the lifetime when that is shorter): a token
 *   used all day adds one event, not one per request, and its lifetime counts from at most that long before its
 *   last use;
 * - tokens issued before tokens had a lifetime count theirs from when the service first ran with one
 *   (TokenLifetimesStarted, recorded once), not from their issue, which would have ended old ones at the upgrade.
 */
export class TokenLifetimes {
  /** How long after a recorded use the next one is recorded. */
  readonly recordEveryMs: number;
  private started: Promise<number> | null = null;
  /** Uses this process recorded that the credentials read model may not show yet, so the next request records none. */
  private readonly recorded = new Map<string, number>();
  private readonly endTexts = new Map<number, string>();

  constructor(
    private readonly store: EventStore,
    readonly lifetimeMs: number,
    private readonly now: () => Date,
  ) {
    this.recordEveryMs = Math.min(dayMs, lifetimeMs / 10);
  }

  /** When tokens got a lifetime (ms): read once per process, and recorded by the first process that finds none. */
  start(): Promise<number> {
    this.started ??= this.readOrRecordStart().catch((error: unknown) => {
      this.started = null; // the store failed: the next request asks again
      throw error;
    });
    return this.started;
  }

  /** When a token's lifetime counts from (ms): `lastRecordedMs`, its last recorded use, or else its issue. */
  async countsFrom(tokenId: string, lastRecordedMs: number): Promise<number> {
    return Math.max(lastRecordedMs, await this.start(), this.recorded.get(tokenId) ?? 0);
  }

  /**
   * The end of a lifetime counting from `from` (ms), as an ISO instant: the same few for all of a token's requests
   * between two recorded uses, so they are written once, not once per request.
   */
  endText(from: number): string {
    let text = this.endTexts.get(from);
    if (text === undefined) {
      text = new Date(from + this.lifetimeMs).toISOString();
      this.endTexts.set(from, text);
      if (this.endTexts.size > mostRemembered) this.endTexts.delete(this.endTexts.keys().next().value!);
    }
    return text;
  }

  /**
   * Whether this use (`now`) is the one to record, the lifetime counting from `from`: true when the last recorded
   * use is `recordEveryMs` old, and then it is remembered at once, so the token's requests meanwhile record none
   * (no await between the check and the claim).
   */
  claimUse(tokenId: string, from: number, now: number): boolean {
    if (now - Math.max(from, this.recorded.get(tokenId) ?? 0) < this.recordEveryMs) return false;
    this.recorded.delete(tokenId);
    this.recorded.set(tokenId, now);
    if (this.recorded.size > mostRemembered) this.recorded.delete(this.recorded.keys().next().value!);
    return true;
  }

  /** Forgets a use whose recording failed. */
  forget(tokenId: string): void {
    this.recorded.delete(tokenId);
  }

  private async readOrRecordStart(): Promise<number> {
    const read = async () => {
      const [first] = await this.store.readStream(tokenLifetimeStream, { maxCount: 1 });
      return first ? Date.parse((first.data as TokenLifetimeEvent["data"]).startedAt) : null;
    };
    const known = await read();
    if (known !== null) return known;
    const startedAt = this.now().toISOString();
    const event: TokenLifetimeEvent = { type: "TokenLifetimesStarted", data: { startedAt } };
    try {
      const metadata = bySystem("accounts", crypto.randomUUID());
      await this.store.append(tokenLifetimeStream, [{ id: crypto.randomUUID(), ...event, metadata }], { expectedRevision: "no_stream" });
      return Date.parse(startedAt);
    } catch (error) {
      // Another replica recorded it first: theirs counts.
      if (error instanceof WrongExpectedRevisionError) return (await read())!;
      throw error;
    }
  }
}
