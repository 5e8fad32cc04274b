import { describe, expect, test } from "bun:test";
import { balanceView, emptyLedger, evolveLedger, splitCharge } from "../../src/accounts/balance.ts";

describe("balance", () => {
  test("a new free month: nothing used, the whole allowance remaining", () => {
    const ledger = evolveLedger(emptyLedger, { type: "AllowanceGranted", data: { period: "2026-11", seconds: 1800, reason: "monthly" } });
    expect(balanceView(ledger)).toEqual({
      used_seconds: 0,
      remaining_seconds: 1800,
      allowance_remaining_seconds: 1800,
      top_up_remaining_seconds: 0,
      total_seconds: 1800,
      usage_percent: 0,
    });
  });

  test("charges use the allowance first, then top-ups; totals stay consistent", () => {
    let ledger = evolveLedger(emptyLedger, { type: "AllowanceGranted", data: { period: "2026-11", seconds: 100, reason: "monthly" } });
    ledger = evolveLedger(ledger, { type: "SecondsToppedUp", data: { seconds: 300 } });
    const split = splitCharge(ledger, 150);
    expect(split).toEqual({ fromAllowance: 100, fromTopUp: 50 });
    ledger = evolveLedger(ledger, { type: "SecondsCharged", data: { seconds: 150, ...split } });
    const view = balanceView(ledger);
    expect(view).toEqual({
      used_seconds: 150,
      remaining_seconds: 250,
      allowance_remaining_seconds: 0,
      top_up_remaining_seconds: 250,
      total_seconds: 400,
      usage_percent: 38,
    });
    expect(view.total_seconds).toBe(view.used_seconds + view.remaining_seconds);
  });

  test("a new month resets usage and the allowance; top-ups carry over", () => {
    let ledger = evolveLedger(emptyLedger, { type: "AllowanceGranted", data: { period: "2026-11", seconds: 100, reason: "monthly" } });
    ledger = evolveLedger(ledger, { type: "SecondsToppedUp", data: { seconds: 50 } });
    ledger = evolveLedger(ledger, { type: "SecondsCharged", data: { seconds: 120, fromAllowance: 100, fromTopUp: 20 } });
    ledger = evolveLedger(ledger, { type: "AllowanceGranted", data: { period: "2026-12", seconds: 100, reason: "monthly" } });
    expect(balanceView(ledger)).toMatchObject({ used_seconds: 0, allowance_remaining_seconds: 100, top_up_remaining_seconds: 30, usage_percent: 0 });
  });

  test("a plan change mid-month resizes the allowance but keeps what was used", () => {
    let ledger = evolveLedger(emptyLedger, { type: "AllowanceGranted", data: { period: "2026-11", seconds: 1800, reason: "monthly" } });
    ledger = evolveLedger(ledger, { type: "SecondsCharged", data: { seconds: 600, fromAllowance: 600, fromTopUp: 0 } });
    ledger = evolveLedger(ledger, { type: "AllowanceGranted", data: { period: "2026-11", seconds: 72000, reason: "plan_change" } });
    expect(balanceView(ledger)).toMatchObject({ used_seconds: 600, allowance_remaining_seconds: 71400, total_seconds: 72000 });
  });

  test("usage percent is 0 with nothing at all and 100 when all is used", () => {
    expect(balanceView(emptyLedger).usage_percent).toBe(0);
    let ledger = evolveLedger(emptyLedger, { type: "AllowanceGranted", data: { period: "2026-11", seconds: 10, reason: "monthly" } });
    ledger = evolveLedger(ledger, { type: "SecondsCharged", data: { seconds: 10, fromAllowance: 10, fromTopUp: 0 } });
    expect(balanceView(ledger).usage_percent).toBe(100);
  });
});
