import type { EventMetadata } from "../core/event.ts";
import type { UserDocument } from "./users-projection.ts";
import { balanceView } from "./balance.ts";
import { plans } from "./plans.ts";

export function avatarUrl(publicUrl: string, user: Pick<UserDocument, "id" | "avatar">): string {
  if (!user.avatar) return `${publicUrl}/avatars/${user.id}/default.svg`;
  return `${publicUrl}/avatars/${user.avatar.key.split("/").slice(1).join("/")}`;
}

export function subscriptionView(user: Pick<UserDocument, "plan" | "interval">) {
  const plan = plans[user.plan];
  return {
    plan: plan.name,
    plan_key: plan.key,
    tier: plan.key === "free" ? ("free" as const) : ("paid" as const),
    billing_interval: user.interval,
    active: plan.key !== "free",
    access_tier: plan.accessTier,
  };
}

/** The profile's `queue`: the user's tasks by state. Tasks count them; accounts only show them. */
export type QueueCounts = { pending_count: number; running_count: number; failed_count: number };
export type QueueOf = (userId: number) => Promise<QueueCounts>;

/**
 * The account's retention (src/retention, which accounts may not import): how many days its tasks are kept (null:
 * until deleted), at most `maxDays` (RETENTION_MAX_DAYS). GET /api/user shows it and PUT /api/user sets it.
 */
export type RetentionSetting = {
  maxDays: number;
  daysOf(userId: number): Promise<number | null>;
  set(userId: number, days: number | null, metadata: EventMetadata): Promise<void>;
};

export function profileView(publicUrl: string, user: UserDocument) {
  return { id: user.id, name: user.name, email: user.email, avatar: avatarUrl(publicUrl, user) };
}

export async function userView(queueOf: QueueOf, retention: RetentionSetting, publicUrl: string, user: UserDocument) {
  return {
    ...profileView(publicUrl, user),
    balance: balanceView(user.ledger),
    subscription: subscriptionView(user),
    queue: await queueOf(user.id),
    retention_days: await retention.daysOf(user.id),
    retention_max_days: retention.maxDays,
  };
}
