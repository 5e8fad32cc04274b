/**
 * The plans and what each grants. Spec 2.4 leaves the subscription values open; these are ours
 * (documented in docs/api.md and the OpenAPI descriptions).
 */
export const planKeys = ["free", "payg", "pro", "max"] as const;
export type PlanKey = (typeof planKeys)[number];
export type BillingInterval = "none" | "month" | "year";

export type Plan = {
  key: PlanKey;
  name: string;
  /** Seconds of transcription granted at the start of every calendar month (UTC). */
  monthlyAllowanceSeconds: number;
  /** Whether API keys can be created and used (spec 5.6). */
  apiAccess: boolean;
  /** Free users cannot submit video links (spec 4.2). */
  videoLinks: boolean;
  /** Spec 8's task priority, as the subscription's access tier. */
  accessTier: "free" | "standard" | "priority";
};

export const plans: Record<PlanKey, Plan> = {
  free: { key: "free", name: "Free", monthlyAllowanceSeconds: 1_800, apiAccess: false, videoLinks: false, accessTier: "free" },
  payg: { key: "payg", name: "Pay as you go", monthlyAllowanceSeconds: 0, apiAccess: true, videoLinks: true, accessTier: "standard" },
  pro: { key: "pro", name: "Pro", monthlyAllowanceSeconds: 72_000, apiAccess: true, videoLinks: true, accessTier: "standard" },
  max: { key: "max", name: "Max", monthlyAllowanceSeconds: 360_000, apiAccess: true, videoLinks: true, accessTier: "priority" },
};

export function isPlanKey(value: string): value is PlanKey {
  return (planKeys as readonly string[]).includes(value);
}

/** The calendar month (UTC) an instant falls in, e.g. `2026-11`: the allowance period. */
export function periodOf(instant: string | Date): string {
  return new Date(instant).toISOString().slice(0, 7);
}
