/**
 * Access tokens last TOKEN_TTL_DAYS (30 by default) after their last use, then 401 in the one error shape; each
 * use moves the end on, recorded as AccessTokenUsed at most once a day per token, so the end is derived from the
 * log and survives a replay. API keys last until revoked; logging out still revokes at once. Tokens issued before
 * tokens had a lifetime count theirs from the service's first start with one. Days pass on the accounts' clock.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { handle } from "../../src/core/command-handler.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import { userStream } from "../../src/accounts/events.ts";
import { newAccessToken } from "../../src/accounts/secrets.ts";
import { tokenLifetimeStream } from "../../src/accounts/token-lifetimes.ts";
import { expectReadModelsEqualReplay } from "../support/read-models-replay.ts";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

let app: TestApp;
let offset = 0;
/** Lets time pass for the accounts (the rate limiter keeps the real clock). */
const pass = (ms: number) => {
  offset += ms;
};
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace }, { now: () => new Date(Date.now() + offset) });
});
afterAll(() => app.close());

async function status(token: string): Promise<number> {
  const response = await app.request("GET", "/api/user", { token });
  if (response.status === 401) expect(await response.json()).toEqual({ message: "Unauthenticated." });
  return response.status;
}

async function usesRecorded(userId: number): Promise<string[]> {
  const events = await app.adapters.eventStore.readStream(userStream(userId));
  return events.filter((e) => e.type === "AccessTokenUsed").map((e) => (e.data as { usedAt: string }).usedAt);
}

test("the default lifetime is 30 days", () => {
  expect(app.config.tokenLifetimeMs).toBe(30 * day);
});

test("a token unused for TOKEN_TTL_DAYS is 401 in the one error shape, on every authenticated route", async () => {
  const user = await app.register();
  pass(30 * day - minute);
  expect(await status(user.token)).toBe(200);
  const other = await app.register();
  pass(30 * day);
  expect(await status(other.token)).toBe(401);
  for (const [method, path] of [
    ["GET", "/api/tasks"],
    ["POST", "/api/folders"],
    ["POST", "/api/logout"],
  ] as const) {
    const response = await app.request(method, path, { token: other.token, json: method === "POST" ? { name: "x" } : undefined });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: "Unauthenticated." });
  }
});

test("each use moves the end on, recorded at most once a day per token", async () => {
  const user = await app.register();
  pass(20 * day);
  // Requests at once: one of them records the use, the others see it recorded.
  const answers = await Promise.all(Array.from({ length: 5 }, () => status(user.token)));
  expect(answers).toEqual([200, 200, 200, 200, 200]);
  expect(await usesRecorded(user.id)).toHaveLength(1);
  pass(hour);
  expect(await status(user.token)).toBe(200);
  expect(await usesRecorded(user.id)).toHaveLength(1);
  // Past 30 days from its issue, alive: it counts from the use 20 days in.
  pass(20 * day);
  expect(await status(user.token)).toBe(200);
  expect(await usesRecorded(user.id)).toHaveLength(2);
  // 30 days without a use: refused, and nothing is recorded for the refused request.
  pass(30 * day);
  expect(await status(user.token)).toBe(401);
  expect(await usesRecorded(user.id)).toHaveLength(2);
});

test("a token's end is derived from the log: the read models equal a replay of it", async () => {
  const user = await app.register();
  pass(2 * day);
  expect(await status(user.token)).toBe(200);
  const events = await app.adapters.eventStore.readStream(userStream(user.id));
  const used = events.findLast((e) => e.type === "AccessTokenUsed")!;
  const usedAt = (used.data as { usedAt: string }).usedAt;
  await app.service.waitForProjections(used.position);
  const credential = await app.adapters.documents.collection("credentials").findOne({ userId: user.id, kind: "token" });
  expect(credential).toMatchObject({ usedAt });
  await expectReadModelsEqualReplay(app.config.dataDir);
});

test("API keys do not expire: a key unused for a year still works until revoked", async () => {
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "ci" } });
  const key = (await created.json()) as { id: string; key: string };
  pass(400 * day);
  expect(await status(key.key)).toBe(200);
  expect(await status(user.token)).toBe(401);
  // The key's own requests record nothing either.
  expect(await usesRecorded(user.id)).toEqual([]);
});

test("logging out still revokes the token at once", async () => {
  const user = await app.register();
  expect((await app.request("POST", "/api/logout", { token: user.token })).status).toBe(204);
  expect(await status(user.token)).toBe(401);
});

test("a token issued before tokens had a lifetime counts it from the service's first start with one", async () => {
  const [started] = await app.adapters.eventStore.readStream(tokenLifetimeStream);
  expect(started?.type).toBe("TokenLifetimesStarted");
  const startedAt = Date.parse((started!.data as { startedAt: string }).startedAt);
  const user = await app.register();
  // Issued long before the lifetime started, as an older version did (an event with that date).
  const { tokenId, token, tokenHash } = newAccessToken();
  const issuedAt = new Date(startedAt - 365 * day).toISOString();
  const { position } = await handle(
    app.adapters.eventStore,
    userStream(user.id),
    userDecider,
    (state) => userDecider.decide({ type: "IssueAccessToken", tokenId, tokenHash, method: "password", now: issuedAt }, state),
    { metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: null, system: "test" } },
  );
  if (position !== null) await app.service.waitForProjections(position);
  // Alive while within 30 days of the start (the clock has moved on by then in this file: set it back there).
  const saved = offset;
  offset = startedAt + 30 * day - minute - Date.now();
  try {
    expect(await status(token)).toBe(200);
  } finally {
    offset = saved;
  }
  // Its use was recorded: 30 days from there, unused, it is refused.
  pass(Math.max(0, startedAt + 61 * day - (Date.now() + offset)));
  expect(await status(token)).toBe(401);
});
