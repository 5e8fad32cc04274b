import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import { numericStreamId } from "../core/event.ts";
import type { UserEvent } from "../accounts/events.ts";
import type { RetentionEvent } from "./events.ts";

/**
 * The `retention_policies` read model: each account's retention, which GET /api/user shows and the job reads to
 * find the accounts it has work for (`active`). An account that turned its retention off keeps its document (days
 * null, not active): a deleted one would forget its position, and a redelivered older event would bring it back.
 */
export type RetentionPolicyFields = { userId: number; days: number | null; active: boolean; setAt: string };
export type RetentionPolicyDocument = ProjectedDocument & RetentionPolicyFields;

/** What the read model folds: a retention set, and an account erased (its tasks gone with it: the job has nothing to do there). */
type PolicyEvent = Extract<RetentionEvent, { type: "RetentionSet" }> | Extract<UserEvent, { type: "AccountErased" }>;

export const retentionProjection: Projection<PolicyEvent> = {
  name: "retention",
  collections: ["retention_policies"],
  eventTypes: ["RetentionSet", "AccountErased"],
  async setup(db) {
    await db.collection("retention_policies").createIndex({ active: 1, userId: 1 });
  },
  apply: positionGuarded<RetentionPolicyFields, PolicyEvent>({
    collection: "retention_policies",
    documentId: (event) => {
      const userId = numericStreamId(event.streamName, "user");
      return userId === null ? null : String(userId);
    },
    evolve: (current, event) => {
      const userId = numericStreamId(event.streamName, "user")!;
      if (event.type === "AccountErased") return current && { ...current, days: null, active: false };
      return { userId, days: event.data.days, active: event.data.days !== null, setAt: event.data.setAt };
    },
  }),
};
