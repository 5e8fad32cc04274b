/** Who may erase an account (src/erasure/account-erasure-confirmation.ts): never an API key; the password, or a fresh sign-in without one. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { ForbiddenError, ValidationFailedError } from "../../src/core/errors.ts";
import { hashPassword } from "../../src/accounts/secrets.ts";
import { apiKeyRefused, confirmErasure, signInAgain, wrongPassword } from "../../src/erasure/account-erasure-confirmation.ts";

const db = new EmbeddedDocumentStore(":memory:");
const now = new Date("2026-11-27T10:00:00.000Z");
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
let passwordHash = "";

beforeAll(async () => {
  passwordHash = await hashPassword("correct horse battery");
  const credential = (kind: string, id: string, createdAt: string) => ({
    _id: `${kind}:${id}`,
    _position: 1,
    hash: id,
    userId: 7,
    kind,
    credentialId: id,
    createdAt,
  });
  await db
    .collection("credentials")
    .insertMany([credential("token", "fresh", minutesAgo(4)), credential("session", "stale", minutesAgo(6)), credential("token", "old", minutesAgo(600))]);
});
afterAll(() => db.close());

const refusal = async (work: Promise<void>) =>
  work.then(
    () => null,
    (error: Error) => error,
  );

describe("with a password", () => {
  const user = () => ({ passwordHash });
  test("an API key is refused (403) even with the right password", async () => {
    const error = await refusal(confirmErasure(db, { userId: 7, kind: "api_key", credentialId: "k" }, user(), "correct horse battery", now));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error?.message).toBe(apiKeyRefused);
  });
  test("the right password confirms, however old the token", async () =>
    expect(await refusal(confirmErasure(db, { userId: 7, kind: "token", credentialId: "old" }, user(), "correct horse battery", now))).toBeNull());
  test("a wrong one is 403, a missing one 422 on password", async () => {
    const wrong = await refusal(confirmErasure(db, { userId: 7, kind: "token", credentialId: "old" }, user(), "incorrect", now));
    expect(wrong).toBeInstanceOf(ForbiddenError);
    expect(wrong?.message).toBe(wrongPassword);
    const missing = await refusal(confirmErasure(db, { userId: 7, kind: "token", credentialId: "old" }, user(), undefined, now));
    expect(missing).toBeInstanceOf(ValidationFailedError);
  });
});

describe("without a password (social login)", () => {
  const user = { passwordHash: null };
  test("a token or session issued within the last 5 minutes confirms, whatever password is sent", async () => {
    expect(await refusal(confirmErasure(db, { userId: 7, kind: "token", credentialId: "fresh" }, user, undefined, now))).toBeNull();
    expect(await refusal(confirmErasure(db, { userId: 7, kind: "token", credentialId: "fresh" }, user, "anything", now))).toBeNull();
  });
  test("an older one is 403, asking to sign in again", async () => {
    for (const [kind, credentialId] of [
      ["session", "stale"],
      ["token", "old"],
      ["token", "unknown"],
    ] as const) {
      const error = await refusal(confirmErasure(db, { userId: 7, kind, credentialId }, user, undefined, now));
      expect(error?.message).toBe(signInAgain);
    }
  });
  test("an API key is refused still", async () =>
    expect((await refusal(confirmErasure(db, { userId: 7, kind: "api_key", credentialId: "fresh" }, user, undefined, now)))?.message).toBe(apiKeyRefused));
});
