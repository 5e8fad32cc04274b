import { describe, expect, test } from "bun:test";
import type { DocumentStore, Filter } from "../../src/readmodels/port.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { projectionSpec } from "../support/projection-spec.ts";
import { foldersProjection } from "../../src/folders/folders-projection.ts";
import { credentialsProjection } from "../../src/accounts/credentials-projection.ts";
import { notificationsProjection } from "../../src/notifications/notifications-projection.ts";
import { taskHistoryProjection } from "../../src/tasks/task-history-projection.ts";
import { tasksProjection } from "../../src/tasks/tasks-projection.ts";
import { applyDeclared } from "../../src/core/projection.ts";

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
          findOne: async (filter: Filter) => {
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
      metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
      streamName: "user-7",
      revision: 2,
      position: 3,
      time: "t",
    };
    await applyDeclared(foldersProjection, event, racing);
    // The write over position 1 was refused (the document had moved to 2): the event was folded again over
    // what the other writer left, whose change survives. A plain replace would have written "t" back.
    expect(await folders.findOne({ _id: "1" })).toMatchObject({ name: "Office", createdAt: "kept from the other writer", _position: 3 });
    expect(interfered).toBe(true);
    await db.close();
  });
});

describe("credentials projection", () => {
  test("a token and a key issued, the token revoked: the key is left, found by its hash", () =>
    projectionSpec(credentialsProjection)
      .given([
        {
          streamName: "user-3",
          type: "AccessTokenIssued",
          data: { tokenId: "t1", tokenHash: "h-t1", method: "password", issuedAt: "2026-01-01T00:00:00.000Z" },
        },
        {
          streamName: "user-3",
          type: "ApiKeyCreated",
          data: { keyId: "k1", name: "ci", keyHash: "h-k1", prefix: "sk_a", createdAt: "2026-01-02T00:00:00.000Z" },
        },
        { streamName: "user-3", type: "AccessTokenRevoked", data: { tokenId: "t1", revokedAt: "2026-01-03T00:00:00.000Z" } },
      ])
      .then({
        credentials: [
          {
            _id: "api_key:k1",
            _position: 2,
            hash: "h-k1",
            userId: 3,
            kind: "api_key",
            credentialId: "k1",
            name: "ci",
            prefix: "sk_a",
            createdAt: "2026-01-02T00:00:00.000Z",
          },
        ],
      }));
});

describe("notifications projection", () => {
  const granted = { period: "2026-01", seconds: 100, reason: "monthly", grantedAt: "2026-01-01T00:00:00.000Z" };
  const charged = (seconds: number) => ({ taskId: 1, seconds, fromAllowance: seconds, fromTopUp: 0, chargedAt: "2026-01-02T00:00:00.000Z" });
  test("a charge that takes the balance low notifies once; one already low does not; the balance is folded once", () =>
    projectionSpec(notificationsProjection)
      .given([
        { streamName: "user-4", type: "AllowanceGranted", data: granted },
        { streamName: "user-4", type: "SecondsCharged", data: charged(95) },
        { streamName: "user-4", type: "SecondsCharged", data: charged(1) },
      ])
      .then({
        notifications: [{ _id: expect.any(String), _position: 2, userId: 4, kind: "balance_low", title: "Balance low", read_at: null }],
        notification_balances: [{ _id: "4", _position: 3 }],
      }));

  test("notifications read stay read when their events arrive again", () =>
    projectionSpec(notificationsProjection)
      .given([
        { streamName: "task-9", type: "TaskFailed", data: { userId: 4, taskId: 9, name: "Call", reason: "boom", attempt: 1 } },
        { streamName: "user-4", type: "NotificationsRead", data: { upTo: "2026-01-05T00:00:00.000Z" } },
      ])
      .then({ notifications: [{ _id: expect.any(String), _position: 1, userId: 4, kind: "task_failed", read_at: "2026-01-05T00:00:00.000Z" }] }));

  test("a task's notifications keep its id; its deletion marks them, and their events arriving again bring none back (issue 25)", () =>
    projectionSpec(notificationsProjection)
      .given([
        { streamName: "task-9", type: "TaskFinished", data: { userId: 4, taskId: 9, name: "Call" } },
        { streamName: "task-10", type: "TaskFinished", data: { userId: 4, taskId: 10, name: "Kept" } },
        { streamName: "task-9", type: "ExportGenerated", data: { userId: 4, taskId: 9, format: "pdf", requested: true } },
        {
          streamName: "user-4",
          type: "PlanChanged",
          data: { plan: "pro", interval: "month", previousPlan: "free", source: "operator", reference: null, changedAt: "2026-01-03T00:00:00.000Z" },
        },
        { streamName: "task-9", type: "TaskDeleted", data: { userId: 4, taskId: 9, wasInFlight: false, attempt: 1 } },
      ])
      .then({
        notifications: expect.arrayContaining([
          expect.objectContaining({ _position: 1, kind: "task_finished", taskId: 9, taskDeleted: true }),
          expect.objectContaining({ _position: 2, kind: "task_finished", taskId: 10, taskDeleted: false }),
          expect.objectContaining({ _position: 3, kind: "export_ready", taskId: 9, taskDeleted: true }),
          expect.objectContaining({ _position: 4, kind: "plan_changed", taskId: null, taskDeleted: false }),
        ]),
      }));
});

describe("task history projection", () => {
  test("one document per task event, with its position; bulky data summarised", () =>
    projectionSpec(taskHistoryProjection)
      .given([
        { streamName: "task-5", type: "TaskRenamed", data: { userId: 2, name: "New" } },
        { streamName: "task-5", type: "TranscriptEdited", data: { userId: 2, segments: [{ start: 0, end: 1, text: "hi" }] } },
      ])
      .then({
        task_history: expect.arrayContaining([
          expect.objectContaining({ taskId: 5, _position: 1, position: 1, type: "TaskRenamed", summary: { userId: 2, name: "New" } }),
          expect.objectContaining({ taskId: 5, _position: 2, position: 2, type: "TranscriptEdited", summary: { userId: 2, segments: "1 segments" } }),
        ]),
      }));
});

describe("tasks projection", () => {
  const created = (taskId: number) => ({
    taskId,
    userId: 6,
    name: `Task ${taskId}`,
    file: "a.mp3",
    path: "p",
    disk: "objstore",
    size: 1,
    duration: 2,
    cost: null,
    url: null,
    speakerDiarization: false,
    transcript: null,
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  test("a folder renamed after a task moved in: the task shows the new name, and the counts agree, after every event again", () =>
    projectionSpec(tasksProjection)
      .given([
        { streamName: "task-1", type: "TaskCreated", data: created(1) },
        { streamName: "task-2", type: "TaskCreated", data: created(2) },
        { streamName: "task-1", type: "TaskMoved", data: { userId: 6, folder: { id: 10, name: "Work" } } },
        { streamName: "user-6", type: "FolderRenamed", data: { folderId: 10, name: "Office", previousName: "Work" } },
        { streamName: "task-2", type: "TaskDeleted", data: { userId: 6 } },
      ])
      .then({
        tasks: [expect.objectContaining({ _id: "1", id: 1, folder: "Office", folderId: 10, _position: 4 })],
        task_counts: [expect.objectContaining({ _id: "6", total: 1, byFolder: { "10": 1 }, _position: 5 })],
      }));
});
