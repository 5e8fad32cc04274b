import { remainingSeconds } from "../accounts/balance.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { recordedByOpenSessions, type LiveSessionSlots } from "./session-slots.ts";

/**
 * The seconds a live session of the account may still record (0 for an account the users read model does not hold):
 * its balance, less what the account's other open sessions (all of them but `exceptSession`) have recorded and will
 * be charged as they end, so that sessions open at once share one balance instead of each spending all of it. Each
 * session notes what it recorded as it reads this (remainingForSession), so another sees it a reading late at most.
 * Tasks in progress are charged only when they finish, so this can be more than what will be left once they do; a
 * live session's task is charged as it is created, never below zero (admission.ts).
 */
export async function remainingBalanceSeconds(db: DocumentStore, userId: number, exceptSession?: string, now = Date.now()): Promise<number> {
  const user = await db.collection<UserDocument>("users").findOne({ _id: String(userId) });
  if (!user) return 0;
  const others = await recordedByOpenSessions(db, userId, exceptSession, now);
  return Math.max(0, remainingSeconds(user.ledger) - others / 1000);
}

/**
 * What the open session `sessionId`, which has recorded `recordedMs`, may record in all: it notes its recording in its
 * slot first (for the account's other sessions), then reads the balance less what those others recorded.
 */
export async function remainingForSession(slots: LiveSessionSlots, db: DocumentStore, userId: number, sessionId: string, recordedMs: number): Promise<number> {
  await slots.renew(userId, sessionId, recordedMs);
  return remainingBalanceSeconds(db, userId, sessionId, slots.now());
}
