import type { DocumentStore } from "../readmodels/port.ts";
import type { UserDocument } from "./users-projection.ts";
import { findTaskCounts } from "../tasks/task-counts.ts";
import { balanceView } from "./balance.ts";
import { plans } from "../billing/plans.ts";

export function avatarUrl(publicUrl: string, user: Pick<UserDocument, "id" | "avatar">): string {
  if (!user.avatar) return `${publicUrl}/avatars/${user.id}/default.svg`;
  return `${publicUrl}/avatars/${user.avatar.key.split("/").slice(1).join("/")}`;
}

export function subscriptionView(user: Pick<UserDocument, "plan" | "interval">) {
  const plan = plans[user.plan];
  return {
    plan: plan.name,
    plan_key: plan.key,
    tier: plan.key === "free" ? "free" : "paid",
    billing_interval: user.interval,
    active: plan.key !== "free",
    access_tier: plan.accessTier,
  };
}

/** The user's tasks by state, from the counts the tasks projection keeps. */
export async function queueCounts(db: DocumentStore, userId: number) {
  const counts = (await findTaskCounts(db, userId))?.byStatus ?? {};
  return {
    pending_count: (counts.pending ?? 0) + (counts.waiting ?? 0),
    running_count: counts.scribing ?? 0,
    failed_count: counts.failed ?? 0,
  };
}

export function profileView(publicUrl: string, user: UserDocument) {
  return { id: user.id, name: user.name, email: user.email, avatar: avatarUrl(publicUrl, user) };
}

export async function userView(db: DocumentStore, publicUrl: string, user: UserDocument) {
  return {
    ...profileView(publicUrl, user),
    balance: balanceView(user.ledger),
    subscription: subscriptionView(user),
    queue: await queueCounts(db, user.id),
  };
}
