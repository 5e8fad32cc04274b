/** The seconds an account has: granted each month by its plan (allowance) or bought/granted once (top-up). */
export type BalanceLedger = {
  period: string;
  allowanceGranted: number;
  allowanceUsed: number;
  topUpGranted: number;
  topUpUsed: number;
  usedThisPeriod: number;
};

export const emptyLedger: BalanceLedger = { period: "", allowanceGranted: 0, allowanceUsed: 0, topUpGranted: 0, topUpUsed: 0, usedThisPeriod: 0 };

/** Spec 2.4's balance object. */
export type BalanceView = {
  used_seconds: number;
  remaining_seconds: number;
  allowance_remaining_seconds: number;
  top_up_remaining_seconds: number;
  total_seconds: number;
  usage_percent: number;
};

export function remainingSeconds(ledger: BalanceLedger): number {
  return Math.max(0, ledger.allowanceGranted - ledger.allowanceUsed) + Math.max(0, ledger.topUpGranted - ledger.topUpUsed);
}

/**
 * allowance_remaining: what is left of this month's plan allowance (it does not carry over);
 * top_up_remaining: what is left of top-ups, which never expire; remaining is their sum;
 * used is what was charged since the last monthly grant; total = used + remaining.
 */
export function balanceView(ledger: BalanceLedger): BalanceView {
  const allowance = Math.max(0, ledger.allowanceGranted - ledger.allowanceUsed);
  const topUp = Math.max(0, ledger.topUpGranted - ledger.topUpUsed);
  const remaining = allowance + topUp;
  const total = ledger.usedThisPeriod + remaining;
  return {
    used_seconds: ledger.usedThisPeriod,
    remaining_seconds: remaining,
    allowance_remaining_seconds: allowance,
    top_up_remaining_seconds: topUp,
    total_seconds: total,
    usage_percent: total === 0 ? 0 : Math.min(100, Math.round((ledger.usedThisPeriod * 100) / total)),
  };
}

/** Charges come out of the allowance first (it expires), then out of top-ups. */
export function splitCharge(ledger: BalanceLedger, seconds: number): { fromAllowance: number; fromTopUp: number } {
  const fromAllowance = Math.min(seconds, Math.max(0, ledger.allowanceGranted - ledger.allowanceUsed));
  return { fromAllowance, fromTopUp: seconds - fromAllowance };
}

type LedgerEvent =
  | { type: "AllowanceGranted"; data: { period: string; seconds: number; reason: "monthly" | "plan_change" } }
  | { type: "SecondsToppedUp"; data: { seconds: number } }
  | { type: "SecondsCharged"; data: { seconds: number; fromAllowance: number; fromTopUp: number } };

/** Folds one balance event; shared by the account decider and the users read model so both agree. */
export function evolveLedger(ledger: BalanceLedger, event: LedgerEvent): BalanceLedger {
  switch (event.type) {
    case "AllowanceGranted":
      return event.data.reason === "monthly"
        ? { ...ledger, period: event.data.period, allowanceGranted: event.data.seconds, allowanceUsed: 0, usedThisPeriod: 0 }
        : { ...ledger, period: event.data.period || ledger.period, allowanceGranted: event.data.seconds };
    case "SecondsToppedUp":
      return { ...ledger, topUpGranted: ledger.topUpGranted + event.data.seconds };
    case "SecondsCharged":
      return {
        ...ledger,
        allowanceUsed: ledger.allowanceUsed + event.data.fromAllowance,
        topUpUsed: ledger.topUpUsed + event.data.fromTopUp,
        usedThisPeriod: ledger.usedThisPeriod + event.data.seconds,
      };
  }
}
