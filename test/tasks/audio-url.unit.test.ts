import { describe, expect, test } from "bun:test";
import { audioUrlLifetimeSeconds, signAudioQuery, signShareAudioQuery, verifyAudioQuery, verifyShareAudioQuery } from "../../src/tasks/audio-url.ts";

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

describe("the share page's signed audio URLs", () => {
  test("a share query grants its task until it expires, and names no user", () => {
    const text = signShareAudioQuery(key, 42, now);
    expect(text).toMatch(/^expires=\d+&signature=[\w-]{43}$/);
    const query = queryOf(text);
    expect(Number(query.expires)).toBe(now / 1000 + audioUrlLifetimeSeconds);
    expect(verifyShareAudioQuery(key, 42, query, now)).toBe(true);
    expect(verifyShareAudioQuery(key, 42, query, now + audioUrlLifetimeSeconds * 1000)).toBe(true);
    expect(verifyShareAudioQuery(key, 42, query, now + (audioUrlLifetimeSeconds + 1) * 1000)).toBe(false);
  });

  test("another task, a later expiry, another key, a missing field, or an owner's query is refused, and the other way round", () => {
    const query = queryOf(signShareAudioQuery(key, 42, now));
    expect(verifyShareAudioQuery(key, 43, query, now)).toBe(false);
    expect(verifyShareAudioQuery(key, 42, { ...query, expires: String(Number(query.expires) + 1) }, now)).toBe(false);
    expect(verifyShareAudioQuery("other", 42, query, now)).toBe(false);
    expect(verifyShareAudioQuery(key, 42, { expires: query.expires }, now)).toBe(false);
    expect(verifyShareAudioQuery(key, 42, { ...query, signature: "x" }, now)).toBe(false);
    expect(verifyShareAudioQuery(key, 42, {}, now)).toBe(false);
    // The labels keep the two kinds apart under one key.
    expect(verifyShareAudioQuery(key, 42, queryOf(signAudioQuery(key, 7, 42, now)), now)).toBe(false);
    expect(verifyAudioQuery(key, 42, { ...query, user: "7" }, now)).toBeNull();
  });
});
