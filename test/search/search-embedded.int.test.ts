/** The search contract on the embedded store: SQLite FTS5 behind the read-model port (src/readmodels/embedded-text.ts). */
import { expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { searchContract } from "../contracts/search.contract.ts";

searchContract("embedded (SQLite FTS5)", async () => {
  const store = new EmbeddedDocumentStore(":memory:");
  return { store, close: () => store.close() };
});

test("past atMost matches only the first atMost written are counted, ranked and paged through", async () => {
  const store = new EmbeddedDocumentStore(":memory:");
  try {
    const collection = store.collection("broad");
    await collection.createTextIndex({ scope: "owner", field: "words" });
    const atMost = 200;
    const n = atMost + 50;
    // The newest documents say "common" most often: outside the first atMost written, they cannot outrank them.
    await collection.insertMany(
      Array.from({ length: n }, (_, i) => ({
        _id: String(i).padStart(6, "0"),
        owner: 1,
        words: i >= atMost ? "common common common" : "common filler words here",
      })),
    );
    const page = (skip: number, limit: number) => collection.searchText(1, [{ words: ["common"], prefix: false }], { skip, limit, atMost });
    const first = await page(0, 25);
    expect(first.total).toBe(atMost);
    expect(first.hits.every((hit) => Number(hit.document._id) < atMost)).toBe(true);
    const last = await page(atMost - 10, 25);
    expect(last.hits.length).toBe(10);
    expect((await page(atMost, 25)).hits).toEqual([]);
    const all = new Set<string>();
    for (let skip = 0; skip < atMost; skip += 30) for (const hit of (await page(skip, 30)).hits) all.add(hit.document._id);
    expect(all.size).toBe(atMost);
    // Fewer than atMost: the exact count.
    expect((await collection.searchText(1, [{ words: ["common"], prefix: false }], { skip: 0, limit: 1, atMost: 1_000 })).total).toBe(n);
  } finally {
    await store.close();
  }
});
