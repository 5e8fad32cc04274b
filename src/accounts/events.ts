import { numericStreamId } from "../core/event.ts";
import type { BillingInterval, PlanKey } from "./plans.ts";

export type Identity = { issuer: string; subject: string };

/** How a token or a session was obtained. */
export type SignInMethod = "registration" | "password" | "social";

/** Everything that happens to an account, on its stream `user-<id>`. */
export type UserEvent =
  | {
      type: "UserRegistered";
      data: { userId: number; name: string; email: string; passwordHash: string | null; identity: Identity | null; registeredAt: string };
    }
  | { type: "AccessTokenIssued"; data: { tokenId: string; tokenHash: string; method: "registration" | "password" | "social"; issuedAt: string } }
  | { type: "AccessTokenRevoked"; data: { tokenId: string; revokedAt: string } }
  /**
   * The token was used: its lifetime (TOKEN_TTL_DAYS) counts from here. Recorded at most once a day per token
   * (src/accounts/token-lifetimes.ts), not on every request, so its end is derived from events and survives a replay.
   */
  | { type: "AccessTokenUsed"; data: { tokenId: string; usedAt: string } }
  /**
   * A sign-in to the web app: a session whose secret travels only in an HttpOnly cookie (never to script),
   * valid until `expiresAt`. Kept apart from access tokens so that each has its own rate limit.
   */
  | { type: "SessionStarted"; data: { sessionId: string; sessionHash: string; method: SignInMethod; startedAt: string; expiresAt: string } }
  /** Signed out (or ended by the operator): the cookie is refused from now on. */
  | { type: "SessionEnded"; data: { sessionId: string; endedAt: string } }
  /** `previousEmail`: the address this change gave up (another address, not another spelling), whose claim is then released. */
  | { type: "ProfileUpdated"; data: { name?: string; email?: string; previousEmail?: string; updatedAt: string } }
  | { type: "AvatarChanged"; data: { key: string; contentType: string; changedAt: string } }
  | { type: "IdentityLinked"; data: { identity: Identity } }
  | {
      type: "PlanChanged";
      data: { plan: PlanKey; interval: BillingInterval; previousPlan: PlanKey; source: "operator" | "checkout"; reference: string | null; changedAt: string };
    }
  /** `monthly` starts a new period (usage counts from zero); `plan_change` resizes the current one. */
  | { type: "AllowanceGranted"; data: { period: string; seconds: number; reason: "monthly" | "plan_change"; grantedAt: string } }
  | { type: "SecondsToppedUp"; data: { seconds: number; source: "operator" | "purchase"; toppedUpAt: string } }
  | { type: "SecondsCharged"; data: { taskId: number; seconds: number; fromAllowance: number; fromTopUp: number; chargedAt: string } }
  | { type: "ApiKeyCreated"; data: { keyId: string; name: string; keyHash: string; prefix: string; createdAt: string } }
  | { type: "ApiKeyRevoked"; data: { keyId: string; revokedAt: string } }
  /** The user marked every notification created at or before `upTo` as read (the notifications read model applies it). */
  | { type: "NotificationsRead"; data: { upTo: string } }
  /**
   * The account was erased (DELETE /api/user, or `bun run admin erase`): nobody signs in to it again and its read
   * models forget it; src/erasure carries out the rest. No personal data: who asked (the user or the operator) and when.
   */
  | { type: "AccountErased"; data: { by: "user" | "operator"; erasedAt: string } };

export type UserEventType = UserEvent["type"];

export const userEventTypes: readonly UserEventType[] = [
  "UserRegistered",
  "AccessTokenIssued",
  "AccessTokenRevoked",
  "AccessTokenUsed",
  "SessionStarted",
  "SessionEnded",
  "ProfileUpdated",
  "AvatarChanged",
  "IdentityLinked",
  "PlanChanged",
  "AllowanceGranted",
  "SecondsToppedUp",
  "SecondsCharged",
  "ApiKeyCreated",
  "ApiKeyRevoked",
  "NotificationsRead",
  "AccountErased",
];

export const userStream = (userId: number | string) => `user-${userId}`;

export const userIdOfStream = (streamName: string): number | null => numericStreamId(streamName, "user");

/** The account a stored event is about (it is on the account's stream), or null for another stream: how other capabilities read it. */
export const userIdOf = (event: { streamName: string }): number | null => userIdOfStream(event.streamName);
