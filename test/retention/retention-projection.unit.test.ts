import { test } from "bun:test";
import { retentionProjection } from "../../src/retention/retention-projection.ts";
import { projectionSpec } from "../support/projection-spec.ts";

/** The accounts the job looks at: those with a retention, not those that turned it off or were erased; a redelivery changes nothing. */

const set = (userId: number, days: number | null) => ({
  streamName: `user-${userId}`,
  type: "RetentionSet",
  data: { days, previousDays: null, setAt: "2026-01-01T00:00:00.000Z" },
});

test("each account's retention, active while it has one; turned off and erased accounts are kept inactive", () =>
  projectionSpec(retentionProjection)
    .given([
      set(1, 30),
      set(2, 7),
      set(2, null),
      set(3, 10),
      { streamName: "user-3", type: "AccountErased", data: { by: "user", erasedAt: "2026-01-02T00:00:00.000Z" } },
      { streamName: "user-4", type: "AccountErased", data: { by: "operator", erasedAt: "2026-01-02T00:00:00.000Z" } },
    ])
    .then({
      retention_policies: [
        { _id: "1", userId: 1, days: 30, active: true },
        { _id: "2", userId: 2, days: null, active: false },
        { _id: "3", userId: 3, days: null, active: false },
      ],
    }));
