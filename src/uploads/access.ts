import { remainingSeconds } from "../accounts/balance.ts";
import { plans } from "../accounts/plans.ts";
import type { Caller } from "../accounts/service.ts";
import type { UserDocument } from "../accounts/users-projection.ts";

/**
 * Spec 4.3's 403 on complete ("API access unavailable, or a plan limit exceeded"), as we read it:
 * - API access: the caller's credential may use the API. A login token always may (web uploads work on
 *   every plan, Free included); an API key only while the account's plan has API access.
 * - Plan limit: the balance. Refused when no transcription time is left, or when the `duration` given
 *   is longer than the time left. (The exact charge is made when the transcript is done.)
 * Checked on sign as well, so nobody sends 2 GB only to be refused at the end.
 */
export function uploadRefusal(caller: Caller, user: UserDocument, duration: number | null | undefined): string | null {
  if (caller.kind === "api_key" && !plans[user.plan].apiAccess) return "API access needs a Pro, Max or pay-as-you-go plan.";
  const remaining = remainingSeconds(user.ledger);
  if (remaining <= 0) return "Your balance has no transcription time left; top up or upgrade your plan to upload.";
  if (duration !== null && duration !== undefined && duration > remaining) {
    return `This file is ${duration} s long but your balance has ${remaining} s left; top up or upgrade your plan.`;
  }
  return null;
}
