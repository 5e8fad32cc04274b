/** The search contract on the embedded store: SQLite FTS5 behind the read-model port (src/readmodels/embedded-text.ts). */
import { expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { searchContract } from "../contracts/search.contract.ts";
import { wordPairs } from "../../src/search/words.ts";

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

test("with a pairs field, phrases match on word pairs in order, through inserts, edits and deletes", async () => {
  const store = new EmbeddedDocumentStore(":memory:");
  try {
    const collection = store.collection("pairs");
    await collection.createTextIndex({ scope: "owner", field: "words", pairs: "pairs" });
    const doc = (id: string, owner: number | string, words: string) => ({ _id: id, owner, words, pairs: wordPairs(words) });
    await collection.insertMany([
      doc("1", 1, "we said the exact words"),
      doc("2", 1, "the exact one and exact words apart"),
      doc("3", 12, "we said the exact words"),
      doc("4", 1, "single"),
    ]);
    const ids = async (scope: string | number, words: string[], prefix = false) =>
      (await collection.searchText(scope, [{ words, prefix }], { skip: 0, limit: 10, atMost: 100 })).hits.map((hit) => hit.document._id).sort();
    // "the exact words": the pairs the_exact and exact_words are both in 2, but not one after the other.
    expect(await ids(1, ["the", "exact", "words"])).toEqual(["1"]);
    expect(await ids(1, ["exact", "words"])).toEqual(["1", "2"]);
    expect(await ids(1, ["words", "exact"])).toEqual([]);
    expect(await ids(1, ["the", "exa"], true)).toEqual(["1", "2"]);
    expect(await ids(1, ["exact", "w"], true)).toEqual(["1", "2"]);
    expect(await ids(1, ["sing"], true)).toEqual(["4"]);
    expect(await ids(12, ["exact", "words"])).toEqual(["3"]);
    await collection.updateOne({ _id: "1" }, { $set: { words: "we said other words", pairs: wordPairs("we said other words") } });
    expect(await ids(1, ["exact", "words"])).toEqual(["2"]);
    expect(await ids(1, ["other", "words"])).toEqual(["1"]);
    await collection.deleteMany({ _id: { $in: ["2"] } });
    expect(await ids(1, ["exact", "words"])).toEqual([]);
    expect(await ids(12, ["exact", "words"])).toEqual(["3"]);
  } finally {
    await store.close();
  }
});
