/**
 * The read-model contract against a real MongoDB (compose runs one). No MongoDB server can be installed
 * on our build machines, so without MONGODB_URL the suite says it skipped rather than passing silently.
 */
import { test } from "bun:test";
import { MongoDocumentStore } from "../../src/readmodels/mongodb.ts";
import { documentStoreContract } from "../contracts/readmodels.contract.ts";
import { knownSkip } from "../support/prerequisites.ts";

const url = process.env.MONGODB_URL;

if (url) {
  const database = process.env.MONGODB_TEST_DB ?? "scribe_contract";
  documentStoreContract(`MongoDB (${database})`, async () => {
    const store = new MongoDocumentStore(url, database);
    return { store, close: () => store.close() };
  });
} else {
  knownSkip("MongoDB contract suite — set MONGODB_URL to run it against a real server");
  test.skip("MongoDB contract suite (set MONGODB_URL)", () => {});
}
