import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Elysia, t, type AnyElysia } from "elysia";
import { createHttpApp } from "../../src/http/app.ts";
import { idempotency } from "../../src/http/idempotency.ts";
import { IdempotencyKeys, idempotencyCollection } from "../../src/http/idempotency-store.ts";
import { requestContext } from "../../src/http/correlation.ts";
import { DomainError } from "../../src/core/errors.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { allProjections } from "../../projections/index.ts";

/**
 * The plugin on a route of its own, over the embedded store with a clock the test moves: what is kept,
 * replayed, refused, freed and expired. The routes that use it are tested in idempotency-routes.int.test.ts.
 */
let db: EmbeddedDocumentStore;
let clock: number;
let keys: IdempotencyKeys;
let app: AnyElysia;
let processed: number;
/** Holds the next requests in their handler until released (a request in flight). */
let gate: Promise<void> | null;

const hour = 3600_000;

beforeEach(() => {
  db = new EmbeddedDocumentStore(":memory:");
  clock = Date.parse("2025-01-01T00:00:00Z");
  keys = new IdempotencyKeys(db, { now: () => clock });
  processed = 0;
  gate = null;
  const feature = new Elysia({ name: "counter-routes" })
    // What authentication does for the real routes: the user is known before the handler.
    .derive({ as: "scoped" }, ({ request, headers }) => {
      requestContext(request).userId = Number(headers["x-user"] ?? 1);
      return {};
    })
    .use(idempotency(keys))
    .post(
      "/count",
      async ({ body, set }) => {
        processed++;
        const mine = processed;
        if (gate) await gate;
        if (body.fail) throw body.fail >= 500 ? new Error("boom") : new DomainError(body.fail as 403, `refused ${mine}`);
        set.status = 201;
        set.headers.location = `/count/${mine}`;
        return { count: mine, note: body.note, dropped: "not in the schema" };
      },
      {
        idempotent: true,
        body: t.Object({ note: t.String({ maxLength: 10 }), fail: t.Optional(t.Integer()) }),
        response: { 201: t.Object({ count: t.Integer(), note: t.String() }) },
      },
    );
  app = createHttpApp([feature]);
});
afterEach(() => db.close());

function post(key: string | null, body: Record<string, unknown>, user = 1): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", "x-user": String(user) };
  if (key !== null) headers["idempotency-key"] = key;
  return app.handle(new Request("http://localhost/count", { method: "POST", headers, body: JSON.stringify(body) }));
}

const answer = async (response: Response) => ({
  status: response.status,
  body: await response.text(),
  contentType: response.headers.get("content-type"),
  location: response.headers.get("location"),
  replayed: response.headers.get("idempotent-replayed"),
});

describe("Idempotency-Key", () => {
  test("the same key and body answer the first answer again, byte for byte, with Idempotent-Replayed; the handler runs once", async () => {
    const first = await answer(await post("k1", { note: "a" }));
    expect(first).toEqual({ status: 201, body: `{"count":1,"note":"a"}`, contentType: "application/json;charset=utf-8", location: "/count/1", replayed: null });
    // Key order and spacing of the body do not make it another request.
    const again = await answer(
      await app.handle(
        new Request("http://localhost/count", {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": '"k1"', "x-user": "1" },
          body: '{ "note" : "a" }',
        }),
      ),
    );
    expect(again).toEqual({ ...first, replayed: "true" });
    expect(processed).toBe(1);
    // Without the header nothing is kept or replayed.
    expect((await answer(await post(null, { note: "a" }))).body).toBe('{"count":2,"note":"a"}');
    expect((await answer(await post(null, { note: "a" }))).body).toBe('{"count":3,"note":"a"}');
  });

  test("the same key with another body is 422 and changes nothing; the first answer stays", async () => {
    await post("k1", { note: "a" });
    const other = await post("k1", { note: "b" });
    expect(other.status).toBe(422);
    const body = (await other.json()) as { message: string; errors: Record<string, string[]> };
    expect(body.errors["Idempotency-Key"]?.[0]).toContain("another request");
    expect(processed).toBe(1);
    expect((await answer(await post("k1", { note: "a" }))).replayed).toBe("true");
  });

  test("while the first request is in flight, the same key is 409; once answered, it is replayed", async () => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const first = post("k1", { note: "a" });
    while (processed === 0) await Bun.sleep(1);
    const during = await Promise.all([1, 2, 3].map(() => post("k1", { note: "a" })));
    expect(during.map((r) => r.status)).toEqual([409, 409, 409]);
    expect(((await during[0]!.json()) as { message: string }).message).toContain("still being processed");
    open();
    expect((await first).status).toBe(201);
    expect((await post("k1", { note: "a" })).headers.get("idempotent-replayed")).toBe("true");
    expect(processed).toBe(1);
  });

  test("ten at once with one key: one is processed, each other is 409 or the replay of its answer", async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, () => post("burst", { note: "a" })));
    expect(processed).toBe(1);
    const created = responses.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    expect(created.length).toBe(1);
    for (const response of responses) expect([201, 409]).toContain(response.status);
  });

  test("per user: another user's same key is another key", async () => {
    await post("shared", { note: "a" }, 1);
    const other = await post("shared", { note: "b" }, 2);
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(processed).toBe(2);
  });

  test("a 4xx of processing is kept and replayed; a 5xx frees the key for a retry processed afresh", async () => {
    const refused = await answer(await post("k4", { note: "a", fail: 403 }));
    expect(refused.status).toBe(403);
    expect(await answer(await post("k4", { note: "a", fail: 403 }))).toEqual({ ...refused, replayed: "true" });
    expect(processed).toBe(1);

    expect((await post("k5", { note: "a", fail: 500 })).status).toBe(500);
    expect((await post("k5", { note: "a", fail: 500 })).status).toBe(500);
    expect(processed).toBe(3);
    // A 409 of processing means "repeat in a moment": not kept either.
    expect((await post("k6", { note: "a", fail: 409 })).status).toBe(409);
    expect((await post("k6", { note: "a" })).status).toBe(201);
    expect(await db.collection(idempotencyCollection).countDocuments({})).toBe(2);
  });

  test("what fails before processing never reaches the key: an invalid body is 422 and the key stays free", async () => {
    expect((await post("k7", { note: "far too long a note" })).status).toBe(422);
    expect(await db.collection(idempotencyCollection).countDocuments({})).toBe(0);
    expect((await post("k7", { note: "a" })).status).toBe(201);
  });

  test("keys over 255 characters, empty, malformed or not ASCII are 422 keyed by the header; nothing is processed", async () => {
    for (const bad of ["k".repeat(256), `"${"k".repeat(256)}"`, "", '""', '"unterminated', "\u00e9t\u00e9"]) {
      const response = await post(bad, { note: "a" });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { message: string; errors: Record<string, string[]> };
      expect(Object.keys(body.errors)).toEqual(["Idempotency-Key"]);
    }
    expect(processed).toBe(0);
    expect((await post("k".repeat(255), { note: "a" })).status).toBe(201);
  });

  test("kept 24 hours: just before, the replay; after, the key is new again and the cleanup deletes what expired", async () => {
    await post("day", { note: "a" });
    clock += 24 * hour - 1;
    expect((await post("day", { note: "a" })).headers.get("idempotent-replayed")).toBe("true");
    clock += 1;
    const after = await post("day", { note: "b" });
    expect(after.status).toBe(201);
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect(processed).toBe(2);

    await post("other", { note: "a" });
    clock += 24 * hour;
    expect(await keys.sweep()).toBe(2);
    expect(await db.collection(idempotencyCollection).countDocuments({})).toBe(0);
  });

  test("a reservation whose request died (its process ended mid-request) is taken over once abandoned", async () => {
    // What a process that died between reserving and answering leaves.
    const reserved = await keys.reserve(1, "orphan", "fingerprint");
    expect(reserved.kind).toBe("reserved");
    expect(await keys.reserve(1, "orphan", "fingerprint")).toEqual({ kind: "in_flight" });
    clock += keys.abandonAfterMs;
    const taken = await keys.reserve(1, "orphan", "fingerprint");
    expect(taken.kind).toBe("reserved");
    // The first holder's late answer no longer lands on the key.
    if (reserved.kind === "reserved") await keys.complete(reserved.reservation, { status: 201, headers: {}, body: "late" });
    expect(await keys.reserve(1, "orphan", "fingerprint")).toEqual({ kind: "in_flight" });
  });

  test("an operational collection: no projection owns it, so a replay of the log neither drops nor rebuilds it", () => {
    for (const projection of allProjections) expect(projection.collections).not.toContain(idempotencyCollection);
  });
});
