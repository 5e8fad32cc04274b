import { remainingSeconds, type BalanceLedger } from "./balance.ts";
import { ForbiddenError } from "../core/errors.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { UserDocument } from "./users-projection.ts";

/**
 * The balance rule at creation (spec 7's 403 "plan limit exceeded"): a task that needs recognition is
 * refused when the balance has no time left, or less than the `duration` the client gave. The exact
 * cost is only known once the media is decoded: a task whose media turns out longer than the balance
 * fails with that reason (pipeline.ts), and the charge never takes the balance below zero.
 */
export function balanceRefusal(ledger: BalanceLedger, duration: number | null | undefined): string | null {
  const remaining = remainingSeconds(ledger);
  if (remaining <= 0) return "Your balance has no transcription time left; top up or upgrade your plan.";
  if (duration !== null && duration !== undefined && duration > remaining)
    return `This media is ${duration} s long but your balance has ${remaining} s left; top up or upgrade your plan.`;
  return null;
}

/** Reads the account's balance from the users read model and refuses with 403 per balanceRefusal. */
export async function assertBalanceAllows(db: DocumentStore, userId: number, duration: number | null | undefined): Promise<void> {
  const user = await db.collection<UserDocument>("users").findOne({ _id: String(userId) });
  const refusal = user ? balanceRefusal(user.ledger, duration) : null;
  if (refusal) throw new ForbiddenError(refusal);
}
