/** The account erasure's pure parts: its decision on the account's stream (given/when/then), and what the account holds elsewhere. */
import { describe, expect, test } from "bun:test";
import { userDecider, type UserState } from "../../src/accounts/decider.ts";
import type { UserEvent } from "../../src/accounts/events.ts";
import type { Decider } from "../../src/core/decider.ts";
import type { RecordedEvent } from "../../src/core/event.ts";
import { NotFoundError } from "../../src/core/errors.ts";
import { decideAccountErasure, type EraseAccount } from "../../src/erasure/account-erasure-decider.ts";
import { holdingsOf } from "../../src/erasure/account-erasure-holdings.ts";
import { accountTaskIds } from "../../src/erasure/account-erasure-tasks.ts";
import { admissionDecider, type AdmissionCommand, type AdmissionEvent, type AdmissionState } from "../../src/tasks/admission.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const now = "2026-11-27T10:00:00.000Z";
const identity = { issuer: "https://idp.example", subject: "sub-1" };
const registered: UserEvent[] = [
  { type: "UserRegistered", data: { userId: 7, name: "Ann", email: "ann@example.com", passwordHash: "h", identity: null, registeredAt: now } },
  { type: "AllowanceGranted", data: { period: "2026-11", seconds: 1800, reason: "monthly", grantedAt: now } },
];
const withKeys: UserEvent[] = [
  ...registered,
  { type: "ApiKeyCreated", data: { keyId: "k1", name: "ci", keyHash: "h1", prefix: "sk_1", createdAt: now } },
  { type: "ApiKeyCreated", data: { keyId: "k2", name: "old", keyHash: "h2", prefix: "sk_2", createdAt: now } },
  { type: "ApiKeyRevoked", data: { keyId: "k2", revokedAt: now } },
];
const erasure: Decider<UserState, EraseAccount, UserEvent> = { ...userDecider, decide: decideAccountErasure };
const account = deciderSpec(erasure);
const erase = (tokens: string[] = [], sessions: string[] = []): EraseAccount => ({ type: "EraseAccount", tokens, sessions, by: "user", now });
const metadata = { correlationId: "c", causationId: null, userId: 7, system: null };
const erased: UserEvent = { type: "AccountErased", data: { by: "user", erasedAt: now } };

describe("erasing an account", () => {
  test("revokes its live API keys, the tokens and sessions named, then records AccountErased", () =>
    account
      .given(withKeys)
      .when(erase(["t1"], ["s1"]))
      .then([
        { type: "ApiKeyRevoked", data: { keyId: "k1", revokedAt: now } },
        { type: "AccessTokenRevoked", data: { tokenId: "t1", revokedAt: now } },
        { type: "SessionEnded", data: { sessionId: "s1", endedAt: now } },
        erased,
      ]));

  test("an account erased already records nothing: the rest of the erasure may run again", () =>
    account
      .given([...registered, erased])
      .when(erase(["t1"]))
      .then([]));

  test("an account that never was is not found", () =>
    account
      .given([])
      .when(erase())
      .thenThrows(NotFoundError, /User not found/));

  test("afterwards every account command is refused as for an unknown account, and registering again changes nothing", () => {
    const state = [...registered, erased].reduce(userDecider.evolve, userDecider.initialState());
    expect(state).toEqual({ status: "erased" });
    expect(() => userDecider.decide({ type: "TopUpSeconds", seconds: 60, source: "operator", now }, state)).toThrow(NotFoundError);
    const credential = { kind: "token", tokenId: "t9", tokenHash: "h9" } as const;
    const again = {
      type: "RegisterUser",
      userId: 7,
      name: "Eve",
      email: "eve@example.com",
      passwordHash: null,
      identity: null,
      credential,
      method: "registration",
      now,
    } as const;
    expect(userDecider.decide(again, state)).toEqual([]);
  });
});

describe("what an account holds outside its stream", () => {
  const recorded = (events: UserEvent[]): RecordedEvent[] =>
    events.map((event, position) => ({ ...event, id: `e${position}`, streamName: "user-7", revision: position, position, time: now, metadata }));

  test("its current email, every identity and every avatar it uploaded", () =>
    expect(
      holdingsOf(
        recorded([
          ...registered,
          { type: "ProfileUpdated", data: { email: "ann@new.example", previousEmail: "ann@example.com", updatedAt: now } },
          { type: "ProfileUpdated", data: { name: "Ann B", updatedAt: now } },
          { type: "IdentityLinked", data: { identity } },
          { type: "AvatarChanged", data: { key: "avatars/7/a.png", contentType: "image/png", changedAt: now } },
          { type: "AvatarChanged", data: { key: "avatars/7/b.png", contentType: "image/png", changedAt: now } },
        ]),
      ),
    ).toEqual({ email: "ann@new.example", identities: [identity], avatarKeys: ["avatars/7/a.png", "avatars/7/b.png"] }));

  test("nothing for a stream without a registration", () => expect(holdingsOf([])).toEqual({ email: null, identities: [], avatarKeys: [] }));
});

describe("a task created in a race with the account's erasure", () => {
  // Folded with the account's own events, which share its stream.
  const admission: Decider<AdmissionState, AdmissionCommand, UserEvent | AdmissionEvent> = admissionDecider;
  const slots = deciderSpec(admission);
  const admitted: AdmissionEvent = { type: "TaskAdmitted", data: { taskId: 5, attempt: 1, admittedAt: now } };
  const admit: AdmissionCommand = { type: "AdmitTask", taskId: 6, attempt: 1, disk: "objstore", limit: 3, abandoned: [], now };

  test("is refused once AccountErased is on the account's stream (not found, as the account is)", () =>
    slots
      .given([...registered, admitted, erased])
      .when(admit)
      .thenThrows(NotFoundError, /User not found/));

  test("a slot held before the erasure is still given back", () =>
    slots
      .given([...registered, admitted, erased])
      .when({ type: "ReleaseTaskSlot", taskId: 5, attempt: 1 })
      .then([{ type: "TaskSlotReleased", data: { taskId: 5, attempt: 1 } }]));
});

describe("the account's tasks, as its erasure lists them", () => {
  const recorded = (events: (UserEvent | AdmissionEvent)[]): RecordedEvent[] =>
    events.map((event, position) => ({ ...event, id: `e${position}`, streamName: "user-7", revision: position, position, time: now, metadata }));

  test("every task admitted on its stream, with those the tasks read model has, each once", async () => {
    const db = new EmbeddedDocumentStore(":memory:");
    try {
      await db.collection("tasks").insertMany([
        { _id: "3", id: 3, userId: 7 },
        { _id: "9", id: 9, userId: 7 },
        { _id: "4", id: 4, userId: 8 },
      ]);
      const history = recorded([
        ...registered,
        { type: "TaskAdmitted", data: { taskId: 9, attempt: 1, admittedAt: now } },
        { type: "TaskAdmitted", data: { taskId: 12, attempt: 1, admittedAt: now } },
        { type: "TaskAdmitted", data: { taskId: 12, attempt: 2, admittedAt: now } },
      ]);
      expect(await accountTaskIds(db, 7, history)).toEqual([3, 9, 12]);
    } finally {
      await db.close();
    }
  });
});
