import { test } from "bun:test";
import { EventStoreDbEventStore } from "../../src/eventstore/eventstoredb.ts";
import { eventStoreContract } from "../contracts/eventstore.contract.ts";
import { knownSkip } from "../support/prerequisites.ts";

const url = process.env.EVENTSTORE_URL?.trim();

if (url) {
  eventStoreContract("EventStoreDbEventStore", async () => {
    const store = new EventStoreDbEventStore(url);
    return { store, close: () => store.close() };
  });
} else {
  knownSkip("EventStoreDB contract suite — set EVENTSTORE_URL to run it against a real server");
  test.skip("EventStore contract: EventStoreDbEventStore (needs EVENTSTORE_URL)", () => {});
}
