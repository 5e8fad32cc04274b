/**
 * The live sessions an account may hold open at once (src/live/session-slots.ts): exactly N of many parallel claims,
 * in one process and across processes sharing the document store; a slot whose session's process died is free
 * again once its lease runs out, and one given back at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { LiveSessionSlots } from "../../src/live/session-slots.ts";

let dir: string;
let store: EmbeddedDocumentStore;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "scribe-live-slots-"));
  store = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const sessions = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe("live session slots", () => {
  test("of 20 parallel claims on one account exactly N get a slot; another account is not affected", async () => {
    const slots = new LiveSessionSlots(store, 2);
    const results = await Promise.all(sessions(20, "a").map((id) => slots.claim(1, id)));
    expect(results.filter(Boolean)).toHaveLength(2);
    expect(await slots.held(1)).toBe(2);
    expect(await slots.claim(2, "other")).toBe(true);
    // A repeat claim by a session that holds a slot is a renewal, never a second slot.
    const holder = sessions(20, "a")[results.indexOf(true)]!;
    expect(await slots.claim(1, holder)).toBe(true);
    expect(await slots.held(1)).toBe(2);
  });

  test("across processes sharing the store: 10 claims here and 10 in another process, exactly N in all", async () => {
    const path = join(dir, "shared.sqlite");
    const here = new EmbeddedDocumentStore(path);
    const script = `
      const { EmbeddedDocumentStore } = await import(${JSON.stringify(join(import.meta.dir, "../../src/readmodels/embedded.ts"))});
      const { LiveSessionSlots } = await import(${JSON.stringify(join(import.meta.dir, "../../src/live/session-slots.ts"))});
      const slots = new LiveSessionSlots(new EmbeddedDocumentStore(${JSON.stringify(path)}), 3);
      const ids = Array.from({ length: 10 }, (_, i) => "there-" + i);
      const results = await Promise.all(ids.map((id) => slots.claim(7, id)));
      console.log(results.filter(Boolean).length);`;
    const other = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const slots = new LiveSessionSlots(here, 3);
    const mine = await Promise.all(sessions(10, "here").map((id) => slots.claim(7, id)));
    const theirs = Number((await new Response(other.stdout).text()).trim());
    expect(await other.exited).toBe(0);
    expect(mine.filter(Boolean).length + theirs).toBe(3);
    expect(await slots.held(7)).toBe(3);
    await here.close();
  });

  test("a slot whose session is gone is free once its lease runs out; renewing keeps it; releasing frees it at once", async () => {
    let now = 1_000_000;
    const slots = new LiveSessionSlots(store, 1, 30_000, () => now);
    expect(await slots.claim(3, "crashed")).toBe(true);
    expect(await slots.claim(3, "next")).toBe(false);
    now += 20_000;
    expect(await slots.renew(3, "crashed")).toBe(true);
    now += 20_000;
    // Renewed 20 s ago: still held.
    expect(await slots.claim(3, "next")).toBe(false);
    now += 30_001;
    // Not renewed for longer than the lease: its process is taken for dead.
    expect(await slots.claim(3, "next")).toBe(true);
    expect(await slots.renew(3, "crashed")).toBe(false);
    await slots.release(3, "next");
    expect(await slots.held(3)).toBe(0);
    expect(await slots.claim(3, "third")).toBe(true);
    expect(slots.renewEveryMs).toBe(10_000);
  });
});
