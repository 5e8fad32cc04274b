import { remainingSeconds } from "../accounts/balance.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";

/**
 * The seconds left on the account's balance, from the users read model (0 for an account it does not hold): what a
 * live session may still record. Tasks in progress are charged only when they finish, so this can be more than what
 * will be left once they do; the charge of a live session's task never takes the balance below zero (admission.ts).
 */
export async function remainingBalanceSeconds(db: DocumentStore, userId: number): Promise<number> {
  const user = await db.collection<UserDocument>("users").findOne({ _id: String(userId) });
  return user ? remainingSeconds(user.ledger) : 0;
}
