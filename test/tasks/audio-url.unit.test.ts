import { describe, expect, test } from "bun:test";
import { audioUrlLifetimeSeconds, signAudioQuery, verifyAudioQuery } from "../../src/tasks/audio-url.ts";

const key = "k".repeat(64);
const now = Date.UTC(2026, 0, 1);
const queryOf = (text: string) => Object.fromEntries(new URLSearchParams(text)) as { user?: string; expires?: string; signature?: string };

describe("signed audio URLs", () => {
  test("a signed query grants its task to its signer until it expires", () => {
    const query = queryOf(signAudioQuery(key, 7, 42, now));
    expect(verifyAudioQuery(key, 42, query, now)).toEqual({ userId: 7, taskId: 42, expires: now / 1000 + audioUrlLifetimeSeconds });
    expect(verifyAudioQuery(key, 42, query, now + audioUrlLifetimeSeconds * 1000)).not.toBeNull();
    expect(verifyAudioQuery(key, 42, query, now + (audioUrlLifetimeSeconds + 1) * 1000)).toBeNull();
  });

  test("another task, another user, a later expiry, another key or a missing field is refused", () => {
    const query = queryOf(signAudioQuery(key, 7, 42, now));
    expect(verifyAudioQuery(key, 43, query, now)).toBeNull();
    expect(verifyAudioQuery(key, 42, { ...query, user: "8" }, now)).toBeNull();
    expect(verifyAudioQuery(key, 42, { ...query, expires: String(Number(query.expires) + 1) }, now)).toBeNull();
    expect(verifyAudioQuery("other", 42, query, now)).toBeNull();
    expect(verifyAudioQuery(key, 42, { user: query.user, expires: query.expires }, now)).toBeNull();
    expect(verifyAudioQuery(key, 42, { ...query, user: "07" }, now)).toBeNull();
    expect(verifyAudioQuery(key, 42, { ...query, signature: "x" }, now)).toBeNull();
    expect(verifyAudioQuery(key, 42, {}, now)).toBeNull();
  });
});
