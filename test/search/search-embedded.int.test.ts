/** The search contract on the embedded store: SQLite FTS5 behind the read-model port (src/readmodels/embedded-text.ts). */
import { expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { rankWindow } from "../../src/readmodels/embedded-text.ts";
import { searchContract } from "../contracts/search.contract.ts";

searchContract("embedded (SQLite FTS5)", async () => {
  const store = new EmbeddedDocumentStore(":memory:");
  return { store, close: () => store.close() };
});

test("past the rank window the count stays exact, the newest matches are ranked, and every page still answers", async () => {
  const store = new EmbeddedDocumentStore(":memory:");
  try {
    const collection = store.collection("broad");
    await collection.createTextIndex({ scope: "owner", field: "words" });
    const n = rankWindow + 50;
    // The oldest documents say "common" most often: outside the window, they cannot outrank the newest.
    await collection.insertMany(
      Array.from({ length: n }, (_, i) => ({ _id: String(i).padStart(6, "0"), owner: 1, words: i < 50 ? "common common common" : "common filler words here" })),
    );
    const page = (skip: number, limit: number) => collection.searchText(1, [{ words: ["common"], prefix: false }], { skip, limit });
    const first = await page(0, 25);
    expect(first.total).toBe(n);
    expect(first.hits.every((hit) => Number(hit.document._id) >= 50)).toBe(true);
    const last = await page(n - 10, 25);
    expect(last.hits.length).toBe(10);
    expect((await page(n, 25)).hits).toEqual([]);
  } finally {
    await store.close();
  }
});
