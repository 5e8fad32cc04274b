// An email or identity claim whose owner has no account may be a registration that died, or one still under way:
// only an old one is taken over.
import { describe, expect, test } from "bun:test";
import { claimAbandonedAfterMs, claimOldEnoughToAbandon } from "../../src/accounts/claims.ts";
import type { RecordedEvent } from "../../src/core/event.ts";

const claimedAt = (time: string) => ({
  readStream: async (): Promise<RecordedEvent[]> => [
    {
      id: "1",
      type: "KeyClaimed",
      data: { userId: 7 },
      metadata: { correlationId: "c", causationId: null, userId: 7, system: null },
      streamName: "email-x",
      revision: 0,
      position: 1,
      time,
    },
  ],
});

describe("an abandoned claim", () => {
  const claimed = "2026-11-27T10:00:00.000Z";
  test("given a claim made a moment ago (a registration still under way), then it is not abandoned", async () => {
    expect(await claimOldEnoughToAbandon(claimedAt(claimed), "email-x", new Date(Date.parse(claimed) + 2_000))).toBe(false);
  });

  test("given a claim older than the registration could take, then it may be taken over", async () => {
    expect(await claimOldEnoughToAbandon(claimedAt(claimed), "email-x", new Date(Date.parse(claimed) + claimAbandonedAfterMs))).toBe(true);
  });

  test("given no claim at all, then there is nothing to abandon", async () => {
    expect(await claimOldEnoughToAbandon({ readStream: async () => [] }, "email-x", new Date())).toBe(false);
  });
});
