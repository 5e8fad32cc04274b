/** The `task_slots` read model: the slots held now, the stuck-task sweeper's candidates. */
import { describe, expect, test } from "bun:test";
import { projectionSpec } from "../support/projection-spec.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { accountsHoldingSlotsSince, taskSlotsProjection } from "../../src/tasks/slots-projection.ts";
import { tasksProjection } from "../../src/tasks/tasks-projection.ts";
import { applyDeclared } from "../../src/core/projection.ts";

const admitted = (userId: number, taskId: number, attempt: number, admittedAt: string) => ({
  streamName: `user-${userId}`,
  type: "TaskAdmitted",
  data: { taskId, attempt, admittedAt },
});
const released = (userId: number, taskId: number, attempt: number) => ({ streamName: `user-${userId}`, type: "TaskSlotReleased", data: { taskId, attempt } });

describe("task slots projection", () => {
  test("one document per slot held, per attempt; a released slot is gone, and a redelivery changes nothing", () =>
    projectionSpec(taskSlotsProjection)
      .given([
        admitted(3, 10, 1, "2026-01-01T00:00:00.000Z"),
        admitted(3, 11, 1, "2026-01-01T00:01:00.000Z"),
        { streamName: "user-3", type: "SecondsCharged", data: { taskId: 10, seconds: 5 } },
        released(3, 10, 1),
        admitted(3, 11, 2, "2026-01-01T00:02:00.000Z"),
        admitted(4, 12, 1, "2026-01-01T00:03:00.000Z"),
      ])
      .then({
        task_slots: [
          { _id: "3:11:1", userId: 3, taskId: 11, attempt: 1, admittedAt: "2026-01-01T00:01:00.000Z" },
          { _id: "3:11:2", userId: 3, taskId: 11, attempt: 2, admittedAt: "2026-01-01T00:02:00.000Z" },
          { _id: "4:12:1", userId: 4, taskId: 12, attempt: 1, admittedAt: "2026-01-01T00:03:00.000Z" },
        ],
      }));

  test("the sweeper's queries use an index: slots taken before a time, and tasks awaiting their next step", async () => {
    const db = new EmbeddedDocumentStore(":memory:");
    try {
      await taskSlotsProjection.setup!(db);
      await tasksProjection.setup!(db);
      await applyDeclared(
        taskSlotsProjection,
        {
          ...admitted(3, 11, 1, "2026-01-01T00:01:00.000Z"),
          id: "a",
          revision: 0,
          position: 1,
          time: "2026-01-01T00:01:00.000Z",
          metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
        },
        db,
      );
      expect(await accountsHoldingSlotsSince(db, "2026-01-01T00:01:00.000Z")).toEqual([]);
      expect(await accountsHoldingSlotsSince(db, "2026-01-01T00:01:00.001Z")).toEqual([3]);
      expect(
        db
          .collection("task_slots")
          .explain({ admittedAt: { $lt: "2026" } }, { limit: 1000 })
          .join("\n"),
      ).toContain("USING INDEX ix2:task_slots:admittedAt_1");
      const awaiting = db
        .collection("tasks")
        .explain({ status: { $in: ["pending", "waiting"] }, updatedAt: { $lt: "2026" } }, { sort: { updatedAt: 1 }, limit: 1000 });
      expect(awaiting.join("\n")).toContain("USING INDEX ix2:tasks:status_1");
    } finally {
      await db.close();
    }
  });
});
