/**
 * Properties of one field's encryption (src/erasure/field-cipher.ts): any JSON value comes back as JSON would give it;
 * anything else (another key, another scope, event type or path, a changed byte) is refused with FieldDecryptionError,
 * never read as something else; and an erased scope reads as erased.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  decryptField,
  encryptedParts,
  encryptField,
  FieldDecryptionError,
  importDataKey,
  isEncryptedField,
  newRawDataKey,
  scopeOfEncryptedField,
  type FieldPlace,
} from "../../src/erasure/field-cipher.ts";
import { SqliteDataKeyStore } from "../../src/erasure/sqlite-data-keys.ts";

let key: CryptoKey;
let otherKey: CryptoKey;
beforeAll(async () => {
  key = await importDataKey(newRawDataKey());
  otherKey = await importDataKey(newRawDataKey());
});

const scopeArb = fc.tuple(fc.constantFrom("task", "account"), fc.nat()).map(([kind, id]) => `${kind}-${id}`);
const placeArb: fc.Arbitrary<FieldPlace> = fc.record({
  scope: scopeArb,
  eventType: fc.constantFrom("TaskCreated", "TaskRenamed", "TranscriptEdited", "UserRegistered"),
  path: fc.constantFrom("name", "file", "url", "segments", "summary", "speakers.0.name"),
});

async function refused(stored: string, withKey: CryptoKey, place: FieldPlace): Promise<boolean> {
  try {
    await decryptField(stored, withKey, place);
    return false;
  } catch (error) {
    if (error instanceof FieldDecryptionError) return true;
    throw error;
  }
}

describe("field cipher properties", () => {
  test("any JSON value comes back as JSON.parse(JSON.stringify(value)), in the stored form, naming its scope", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), placeArb, async (value, place) => {
        const stored = await encryptField(value, key, place);
        expect(isEncryptedField(stored)).toBe(true);
        expect(stored).toMatch(/^enc:v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
        expect(scopeOfEncryptedField(stored)).toBe(place.scope);
        expect(await decryptField(stored, key, place)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  test("the same value twice is stored differently (a fresh IV each time)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), placeArb, async (value, place) => {
        expect(await encryptField(value, key, place)).not.toBe(await encryptField(value, key, place));
      }),
    );
  });

  test("another key is refused", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), placeArb, async (value, place) => {
        expect(await refused(await encryptField(value, key, place), otherKey, place)).toBe(true);
      }),
    );
  });

  test("another scope, event type or path is refused, the stored scope rewritten to match included", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), placeArb, placeArb, async (value, place, elsewhere) => {
        fc.pre(place.scope !== elsewhere.scope || place.eventType !== elsewhere.eventType || place.path !== elsewhere.path);
        const stored = await encryptField(value, key, place);
        const parts = encryptedParts(stored);
        if (!parts) throw new Error("not in the stored form");
        const moved = `enc:v1:${elsewhere.scope}:${parts.iv}:${parts.ciphertext}`;
        expect(await refused(stored, key, elsewhere)).toBe(true);
        expect(await refused(moved, key, elsewhere)).toBe(true);
      }),
    );
  });

  test("a changed bit anywhere in the IV or the ciphertext is refused", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), placeArb, fc.boolean(), fc.nat(), fc.integer({ min: 0, max: 7 }), async (value, place, inIv, at, bit) => {
        const parts = encryptedParts(await encryptField(value, key, place));
        if (!parts) throw new Error("not in the stored form");
        const bytes = Buffer.from(inIv ? parts.iv : parts.ciphertext, "base64url");
        bytes[at % bytes.length] = (bytes[at % bytes.length] ?? 0) ^ (1 << bit);
        const changed = bytes.toString("base64url");
        const stored = `enc:v1:${parts.scope}:${inIv ? changed : parts.iv}:${inIv ? parts.ciphertext : changed}`;
        expect(await refused(stored, key, place)).toBe(true);
      }),
    );
  });

  test("any damaged stored text is refused with FieldDecryptionError, never another error", async () => {
    const place = { scope: "task-1", eventType: "TaskCreated", path: "name" };
    const good = await encryptField("x", key, place);
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.nat(), async (junk, cut) => {
        expect(await refused(`enc:v1:${junk}`, key, place)).toBe(true);
        expect(await refused(good.slice(0, cut % good.length), key, place)).toBe(true);
        expect(await refused(`${good}${junk}`, key, place)).toBe(junk !== "");
      }),
    );
  });

  test("a value with no JSON form, or a scope the stored form cannot hold, is refused at encryption", async () => {
    const place = { scope: "task-1", eventType: "TaskCreated", path: "name" };
    await expect(encryptField(undefined, key, place)).rejects.toThrow(TypeError);
    await expect(encryptField(() => 1, key, place)).rejects.toThrow(TypeError);
    await expect(encryptField("x", key, { ...place, scope: "task:1" })).rejects.toThrow(TypeError);
    expect(isEncryptedField("enc:v2:task-1:a:b")).toBe(false);
    expect(isEncryptedField({ enc: "v1" })).toBe(false);
    expect(scopeOfEncryptedField("enc:v1:task-1:only-two")).toBeNull();
  });

  test("erased scopes read as erased, and only they: their fields no longer decrypt with any key the store gives", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 12 }), fc.func(fc.boolean()), async (ids, erased) => {
        const store = new SqliteDataKeyStore(":memory:");
        try {
          const stored = new Map<string, string>();
          for (const id of ids) {
            const scope = `task-${id}`;
            const place = { scope, eventType: "TaskCreated", path: "name" };
            stored.set(scope, await encryptField(`secret ${id}`, (await store.keyFor(scope, 7)) as CryptoKey, place));
          }
          for (const id of ids) if (erased(id)) await store.erase(`task-${id}`);
          for (const id of ids) {
            const scope = `task-${id}`;
            const found = await store.find(scope);
            if (erased(id)) {
              expect(found).toBe("erased");
              expect(await store.keyFor(scope, 7)).toBeNull();
            } else {
              expect(await decryptField(stored.get(scope) ?? "", found as CryptoKey, { scope, eventType: "TaskCreated", path: "name" })).toBe(`secret ${id}`);
            }
          }
          expect((await store.erasures()).map((e) => e.scope).sort()).toEqual(
            ids
              .filter((id) => erased(id))
              .map((id) => `task-${id}`)
              .sort(),
          );
        } finally {
          await store.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
