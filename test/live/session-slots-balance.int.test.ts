/**
 * Live sessions of one account open at once share its balance (session-balance.ts): each notes in its slot what it
 * has recorded as it reads the balance again (every 15 s), and reads the balance less what the others recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import type { Document } from "../../src/readmodels/port.ts";
import { emptyLedger, type BalanceLedger } from "../../src/accounts/balance.ts";
import { LiveSessionSlots } from "../../src/live/session-slots.ts";
import { remainingBalanceSeconds, remainingForSession } from "../../src/live/session-balance.ts";

let dir: string;
let store: EmbeddedDocumentStore;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "scribe-live-balance-"));
  store = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An account whose balance holds `seconds` (the users read model, as the accounts projection writes it). */
async function account(userId: number, seconds: number): Promise<void> {
  const ledger: BalanceLedger = { ...emptyLedger, topUpGranted: seconds };
  await store.collection<Document & { ledger: BalanceLedger }>("users").replaceOne({ _id: String(userId) }, { _id: String(userId), ledger }, { upsert: true });
}

describe("the balance of an account's open live sessions", () => {
  test("each session's recording counts against the others' balance, not its own; a released or expired one no longer", async () => {
    let now = 1_000_000;
    const slots = new LiveSessionSlots(store, 3, 60_000, () => now);
    await account(11, 300);
    for (const id of ["a", "b", "c"]) expect(await slots.claim(11, id)).toBe(true);
    expect(await remainingForSession(slots, store, 11, "a", 40_000)).toBe(300);
    expect(await remainingForSession(slots, store, 11, "b", 100_000)).toBe(260);
    expect(await remainingForSession(slots, store, 11, "a", 45_000)).toBe(200);
    // A new session is admitted on what all the open ones left.
    expect(await remainingBalanceSeconds(store, 11, undefined, now)).toBe(155);
    await slots.release(11, "b");
    expect(await remainingBalanceSeconds(store, 11, "a", now)).toBe(300);
    // A session whose process died counts until its lease runs out, then no more.
    await slots.renew(11, "c", 30_000);
    expect(await remainingBalanceSeconds(store, 11, "a", now)).toBe(270);
    now += 61_000;
    expect(await remainingBalanceSeconds(store, 11, "a", now)).toBe(300);
  });

  test("two sessions at twice real time cannot together record much more than the balance", async () => {
    let now = 2_000_000;
    const slots = new LiveSessionSlots(store, 2, 60_000, () => now);
    const balance = 300;
    await account(12, balance);
    const sessions = ["x", "y"].map((id, i) => ({ id, recordedMs: 0, budgetMs: 0, readsAt: i * 7 }));
    for (const session of sessions) {
      expect(await slots.claim(12, session.id)).toBe(true);
      session.budgetMs = (await remainingBalanceSeconds(store, 12, undefined, now)) * 1000;
    }
    // A second at a time, each session records 2 s while its budget lasts, and reads the balance again every 15 s.
    for (let second = 1; second <= 600; second++) {
      now += 1000;
      for (const session of sessions) {
        if (session.recordedMs < session.budgetMs) session.recordedMs += 2000;
        if (second % 15 === session.readsAt % 15) session.budgetMs = (await remainingForSession(slots, store, 12, session.id, session.recordedMs)) * 1000;
      }
    }
    const total = sessions.reduce((sum, session) => sum + session.recordedMs, 0) / 1000;
    // Each may record what 15 s at twice real time hold before the other sees it (60 s in all); alone each would spend 300.
    expect(total).toBeGreaterThanOrEqual(balance);
    expect(total).toBeLessThanOrEqual(balance + 60);
  });
});
