/**
 * Prefix queries on the embedded store, which serves 1 to 4 letters from FTS5 prefix indexes over scoped words
 * written in 16 hex digits (src/readmodels/embedded-text.ts): every length finds exactly the words it starts,
 * within its own scope only, whatever the scope's value.
 */
import { expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { wordPairs } from "../../src/search/words.ts";

const texts = ["transcript tram", "trade route", "t", "table", "apple banana", "über straße", "mañana", "tr"];
// Integers short and long, negative, at 2^53, and text scopes that spell an integer or look like hex.
const owners: (number | string)[] = [1, 12, 123_456_789_012, -3, 2 ** 53, "1", "abc", "31"];

test("prefixes of 1 to 5 letters find exactly the words they start, within one scope", async () => {
  const store = new EmbeddedDocumentStore(":memory:");
  try {
    const collection = store.collection("prefixes");
    await collection.createTextIndex({ scope: "owner", field: "words", pairs: "pairs" });
    const documents = owners.flatMap((owner, o) => texts.map((words, t) => ({ _id: `${o}:${t}`, owner, words, pairs: wordPairs(words) })));
    await collection.insertMany(documents);
    const found = async (owner: number | string, prefix: string) =>
      (await collection.searchText(owner, [{ words: [prefix], prefix: true }], { skip: 0, limit: 100, atMost: 1_000 })).hits
        .map((hit) => hit.document._id)
        .sort();
    for (const owner of owners)
      for (const prefix of ["t", "tr", "tra", "tran", "trans", "a", "ü", "üb", "ma", "straß", "x", "zz"]) {
        const expected = documents
          .filter((document) => document.owner === owner && document.words.split(" ").some((word) => word.startsWith(prefix)))
          .map((document) => document._id)
          .sort();
        expect({ owner, prefix, ids: await found(owner, prefix) }).toEqual({ owner, prefix, ids: expected });
      }
    // A phrase whose last word is a prefix still matches on the pairs.
    expect((await collection.searchText(1, [{ words: ["trade", "r"], prefix: true }], { skip: 0, limit: 10, atMost: 100 })).total).toBe(1);
    // Edits and deletes leave the prefix indexes in step.
    await collection.updateOne({ _id: "0:3" }, { $set: { words: "chair", pairs: wordPairs("chair") } });
    await collection.deleteMany({ _id: { $in: ["0:1"] } });
    expect(await found(1, "t")).toEqual(["0:0", "0:2", "0:7"]);
    expect(await found(1, "ch")).toEqual(["0:3"]);
  } finally {
    await store.close();
  }
});
