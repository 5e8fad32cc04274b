import { describe, expect, test } from "bun:test";
import { userDecider, type UserCommand } from "../../src/accounts/decider.ts";
import { claimDecider } from "../../src/accounts/claims.ts";
import type { UserEvent } from "../../src/accounts/events.ts";
import { ForbiddenError, NotFoundError, ValidationFailedError } from "../../src/core/errors.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const now = "2026-11-23T10:00:00.000Z";
const registered: UserEvent[] = [
  { type: "UserRegistered", data: { userId: 7, name: "Ann", email: "ann@example.com", passwordHash: "h", identity: null, registeredAt: now } },
  { type: "AllowanceGranted", data: { period: "2026-11", seconds: 1800, reason: "monthly", grantedAt: now } },
];
const onPro: UserEvent[] = [
  ...registered,
  { type: "PlanChanged", data: { plan: "pro", interval: "month", previousPlan: "free", source: "operator", reference: null, changedAt: now } },
  { type: "AllowanceGranted", data: { period: "2026-11", seconds: 72000, reason: "plan_change", grantedAt: now } },
];
const user = deciderSpec(userDecider);

describe("account decider", () => {
  test("registering grants the free allowance and issues the first token", () =>
    user
      .given([])
      .when({
        type: "RegisterUser",
        userId: 7,
        name: "Ann",
        email: "ann@example.com",
        passwordHash: "h",
        identity: null,
        credential: { kind: "token", tokenId: "t1", tokenHash: "th" },
        method: "registration",
        now,
      })
      .then([...registered, { type: "AccessTokenIssued", data: { tokenId: "t1", tokenHash: "th", method: "registration", issuedAt: now } }]));

  test("registering through the web app starts a session instead, which lasts until its expiry", () =>
    user
      .given([])
      .when({
        type: "RegisterUser",
        userId: 7,
        name: "Ann",
        email: "ann@example.com",
        passwordHash: "h",
        identity: null,
        credential: { kind: "session", sessionId: "s1", sessionHash: "sh", expiresAt: "2026-12-23T10:00:00.000Z" },
        method: "registration",
        now,
      })
      .then([
        ...registered,
        { type: "SessionStarted", data: { sessionId: "s1", sessionHash: "sh", method: "registration", startedAt: now, expiresAt: "2026-12-23T10:00:00.000Z" } },
      ]));

  test("sessions start and end without the account folding them", () => {
    const expiresAt = "2026-12-23T10:00:00.000Z";
    user
      .given(registered)
      .when({ type: "StartSession", sessionId: "s1", sessionHash: "sh", expiresAt, method: "password", now })
      .then([{ type: "SessionStarted", data: { sessionId: "s1", sessionHash: "sh", method: "password", startedAt: now, expiresAt } }]);
    user
      .given(registered)
      .when({ type: "EndSession", sessionId: "s1", now })
      .then([{ type: "SessionEnded", data: { sessionId: "s1", endedAt: now } }]);
    user.given([]).when({ type: "EndSession", sessionId: "s1", now }).thenThrows(NotFoundError);
  });

  test("commands on an account that does not exist are refused", () =>
    user.given([]).when({ type: "TopUpSeconds", seconds: 5, source: "operator", now }).thenThrows(NotFoundError));

  test("tokens are issued and revoked without the account folding them (logins must not slow it down)", () => {
    user
      .given(registered)
      .when({ type: "IssueAccessToken", tokenId: "t1", tokenHash: "th", method: "password", now })
      .then([{ type: "AccessTokenIssued", data: { tokenId: "t1", tokenHash: "th", method: "password", issuedAt: now } }]);
    const withToken: UserEvent[] = [...registered, { type: "AccessTokenIssued", data: { tokenId: "t1", tokenHash: "th", method: "password", issuedAt: now } }];
    user
      .given(withToken)
      .when({ type: "RevokeAccessToken", tokenId: "t1", now })
      .then([{ type: "AccessTokenRevoked", data: { tokenId: "t1", revokedAt: now } }]);
    user.given([]).when({ type: "RevokeAccessToken", tokenId: "t1", now }).thenThrows(NotFoundError);
  });

  test("a free account cannot create API keys; a paid one can, and revokes only its own", () => {
    const create: UserCommand = { type: "CreateApiKey", keyId: "k1", name: "ci", keyHash: "kh", prefix: "sk_abc", now };
    user
      .given(registered)
      .when(create)
      .thenThrows(ForbiddenError, /Pro, Max or pay-as-you-go/);
    user
      .given(onPro)
      .when(create)
      .then([{ type: "ApiKeyCreated", data: { keyId: "k1", name: "ci", keyHash: "kh", prefix: "sk_abc", createdAt: now } }]);
    user.given(onPro).when({ type: "RevokeApiKey", keyId: "other", now }).thenThrows(NotFoundError);
  });

  test("changing plan resizes this month's allowance; the same plan again changes nothing", () => {
    user.given(registered).when({ type: "ChangePlan", plan: "pro", interval: "month", source: "operator", reference: null, now }).then(onPro.slice(2));
    user.given(onPro).when({ type: "ChangePlan", plan: "pro", interval: "month", source: "checkout", reference: "r", now }).then([]);
  });

  test("the monthly allowance is granted once per calendar month", () => {
    user.given(registered).when({ type: "GrantMonthlyAllowance", now }).then([]);
    user
      .given(registered)
      .when({ type: "GrantMonthlyAllowance", now: "2026-12-01T00:00:00.000Z" })
      .then([{ type: "AllowanceGranted", data: { period: "2026-12", seconds: 1800, reason: "monthly", grantedAt: "2026-12-01T00:00:00.000Z" } }]);
  });

  test("a profile update with nothing in it appends nothing", () => user.given(registered).when({ type: "UpdateProfile", now }).then([]));

  test("a new address names the one given up (whose claim is then released); another spelling of the same does not", () => {
    user
      .given(registered)
      .when({ type: "UpdateProfile", email: "new@example.com", now })
      .then([{ type: "ProfileUpdated", data: { email: "new@example.com", previousEmail: "ann@example.com", updatedAt: now } }]);
    user
      .given(registered)
      .when({ type: "UpdateProfile", email: "Ann@Example.com", now })
      .then([{ type: "ProfileUpdated", data: { email: "Ann@Example.com", updatedAt: now } }]);
  });
});

describe("unique key claims", () => {
  const claims = deciderSpec(claimDecider);
  const claim = (userId: number, abandonedBy: number | null = null) => ({
    type: "Claim" as const,
    userId,
    abandonedBy,
    field: "email",
    message: "The email has already been taken.",
  });

  test("a free key is claimed", () =>
    claims
      .given([])
      .when(claim(1))
      .then([{ type: "KeyClaimed", data: { userId: 1 } }]));
  test("claiming again for the same owner changes nothing", () =>
    claims
      .given([{ type: "KeyClaimed", data: { userId: 1 } }])
      .when(claim(1))
      .then([]));
  test("a key held by a live account is taken", () =>
    claims
      .given([{ type: "KeyClaimed", data: { userId: 1 } }])
      .when(claim(2))
      .thenThrows(ValidationFailedError, /already been taken/));
  test("a claim abandoned by a registration that died is taken over", () =>
    claims
      .given([{ type: "KeyClaimed", data: { userId: 1 } }])
      .when(claim(2, 1))
      .then([{ type: "KeyClaimed", data: { userId: 2 } }]));
  test("a released key is free again", () =>
    claims
      .given([
        { type: "KeyClaimed", data: { userId: 1 } },
        { type: "KeyReleased", data: { userId: 1 } },
      ])
      .when(claim(2))
      .then([{ type: "KeyClaimed", data: { userId: 2 } }]));
  test("only the owner releases", () => {
    claims
      .given([{ type: "KeyClaimed", data: { userId: 1 } }])
      .when({ type: "Release", userId: 2 })
      .then([]);
    claims
      .given([{ type: "KeyClaimed", data: { userId: 1 } }])
      .when({ type: "Release", userId: 1 })
      .then([{ type: "KeyReleased", data: { userId: 1 } }]);
  });
});

test("decider errors carry the HTTP status of spec section 7", () => {
  expect(new ForbiddenError().status).toBe(403);
  expect(new ValidationFailedError({ a: ["b"] }).status).toBe(422);
});
