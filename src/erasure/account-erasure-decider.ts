import { NotFoundError } from "../core/errors.ts";
import type { UserState } from "../accounts/commands.ts";
import type { UserEvent } from "../accounts/events.ts";

/** Who asked for an erasure: the account's user (DELETE /api/user) or the operator (`bun run admin erase`). */
export type ErasedBy = "user" | "operator";

/**
 * Erase the account. `tokens` and `sessions`: its live access tokens and web app sessions, as the `credentials` read
 * model lists them (the account's state does not fold them, src/accounts/decider.ts): each is revoked by an event of
 * its own, so a replay of the log forgets them as the live read model did.
 */
export type EraseAccount = { type: "EraseAccount"; tokens: readonly string[]; sessions: readonly string[]; by: ErasedBy; now: string };

/**
 * What erasing the account records on its stream: every way in taken back (API keys, tokens, sessions), then
 * `AccountErased`, after which the account's decider refuses everything and its read models forget it. An account
 * erased already records nothing (the rest of the erasure may run again, src/erasure/account-erasure.ts); one that
 * never was is not found.
 */
export function decideAccountErasure(command: EraseAccount, state: UserState): UserEvent[] {
  if (state.status === "erased") return [];
  if (state.status === "none") throw new NotFoundError("User not found.");
  const { now } = command;
  return [
    ...[...state.apiKeys].map((keyId): UserEvent => ({ type: "ApiKeyRevoked", data: { keyId, revokedAt: now } })),
    ...command.tokens.map((tokenId): UserEvent => ({ type: "AccessTokenRevoked", data: { tokenId, revokedAt: now } })),
    ...command.sessions.map((sessionId): UserEvent => ({ type: "SessionEnded", data: { sessionId, endedAt: now } })),
    { type: "AccountErased", data: { by: command.by, erasedAt: now } },
  ];
}
