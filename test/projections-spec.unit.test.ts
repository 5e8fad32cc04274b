import { describe, expect, test } from "bun:test";
import type { DocumentStore } from "../src/readmodels/port.ts";
import { EmbeddedDocumentStore } from "../src/readmodels/embedded.ts";
import { projectionSpec } from "./support/projection-spec.ts";
import { foldersProjection } from "../src/folders/folders-projection.ts";

// Projections given events, then documents; every event delivered twice changes nothing the second time.

describe("folders projection", () => {
  test("created, renamed and deleted folders", () =>
    projectionSpec(foldersProjection)
      .given([
        { streamName: "user-7", type: "FolderCreated", data: { folderId: 1, name: "Work" } },
        { streamName: "user-7", type: "FolderCreated", data: { folderId: 2, name: "Home" } },
        { streamName: "user-7", type: "FolderRenamed", data: { folderId: 1, name: "Office", previousName: "Work" } },
        { streamName: "user-7", type: "FolderDeleted", data: { folderId: 2, name: "Home" } },
      ])
      .then({ folders: [{ _id: "1", id: 1, userId: 7, name: "Office", _position: 3 }] }));

  test("a deleted folder is still gone once every event has been delivered again", () =>
    projectionSpec(foldersProjection)
      .given([
        { streamName: "user-7", type: "FolderCreated", data: { folderId: 5, name: "Tmp" } },
        { streamName: "user-7", type: "FolderDeleted", data: { folderId: 5, name: "Tmp" } },
      ])
      .then({ folders: [] }));
});

describe("compare-and-set writes", () => {
  test("an event folded while another writer changed the document is folded again into what is there", async () => {
    const db = new EmbeddedDocumentStore(":memory:");
    const folders = db.collection("folders");
    // A second writer slips in between this writer's read and its write, once.
    let interfered = false;
    const racing = {
      ...db,
      changeStamp: db.changeStamp.bind(db),
      replaceCollections: db.replaceCollections.bind(db),
      dropCollection: db.dropCollection.bind(db),
      close: db.close.bind(db),
      collection: (name: string) => {
        const inner = db.collection(name);
        return {
          ...inner,
          findOne: async (filter: Record<string, unknown>) => {
            const found = await inner.findOne(filter);
            if (!interfered && found) {
              interfered = true;
              await inner.replaceOne({ _id: found._id }, { ...found, createdAt: "kept from the other writer", _position: 2 });
            }
            return found;
          },
          replaceOne: inner.replaceOne.bind(inner),
          insertOne: inner.insertOne.bind(inner),
          deleteOne: inner.deleteOne.bind(inner),
        };
      },
    } as unknown as DocumentStore;
    await folders.insertOne({ _id: "1", id: 1, userId: 7, name: "Work", createdAt: "t", _position: 1 });
    const event = {
      id: "e3",
      type: "FolderRenamed",
      data: { folderId: 1, name: "Office", previousName: "Work" },
      metadata: { correlationId: "c", causationId: null, userId: null },
      streamName: "user-7",
      revision: 2,
      position: 3,
      time: "t",
    };
    await foldersProjection.apply(event, racing);
    // The write over position 1 was refused (the document had moved to 2): the event was folded again over
    // what the other writer left, whose change survives. A plain replace would have written "t" back.
    expect(await folders.findOne({ _id: "1" })).toMatchObject({ name: "Office", createdAt: "kept from the other writer", _position: 3 });
    expect(interfered).toBe(true);
    await db.close();
  });
});
