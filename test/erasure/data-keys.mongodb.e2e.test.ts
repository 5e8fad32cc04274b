/**
 * The data-key store contract on MongoDB (src/erasure/mongodb-data-keys.ts). No MongoDB server can be installed on our
 * build machines, so without MONGODB_URL the suite says it skipped rather than passing silently.
 */
import { test } from "bun:test";
import { MongoDataKeyStore } from "../../src/erasure/mongodb-data-keys.ts";
import { dataKeysContract } from "../contracts/data-keys.contract.ts";
import { knownSkip } from "../support/prerequisites.ts";

const url = process.env.MONGODB_URL;
const ttlMs = 100;

if (url) {
  const database = process.env.MONGODB_TEST_DB ?? "scribe_contract";
  dataKeysContract(`MongoDB (${database})`, { open: async () => new MongoDataKeyStore(url, database, { ttlMs }), staleForMs: ttlMs });
} else {
  knownSkip("MongoDB data-key store contract suite — set MONGODB_URL to run it against a real server");
  test.skip("MongoDB data-key store contract suite (set MONGODB_URL)", () => {});
}
