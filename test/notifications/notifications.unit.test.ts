import { describe, expect, test } from "bun:test";
import { emptyLedger, evolveLedger, splitCharge, type BalanceLedger } from "../../src/accounts/balance.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import type { UserEvent } from "../../src/accounts/events.ts";
import { NotFoundError } from "../../src/core/errors.ts";
import { balanceLowAfterCharge, formatDuration, isBalanceLow, planChanged, taskNotification } from "../../src/notifications/decisions.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const now = "2026-03-04T10:00:00.000Z";
const registered: UserEvent[] = [
  { type: "UserRegistered", data: { userId: 7, name: "Ada", email: "ada@example.com", passwordHash: null, identity: null, registeredAt: now } },
  { type: "AllowanceGranted", data: { period: "2026-03", seconds: 1_800, reason: "monthly", grantedAt: now } },
];

const ledger = (granted: number, used: number, topUp = 0): BalanceLedger => ({
  ...emptyLedger,
  period: "2026-03",
  allowanceGranted: granted,
  allowanceUsed: used,
  topUpGranted: topUp,
  usedThisPeriod: used,
});
const charge = (before: BalanceLedger, seconds: number) => evolveLedger(before, { type: "SecondsCharged", data: { seconds, ...splitCharge(before, seconds) } });

describe("MarkNotificationsRead (user decider)", () => {
  const spec = deciderSpec(userDecider);

  test("given a registered user, when marking read, then NotificationsRead up to now", () => {
    spec
      .given(registered)
      .when({ type: "MarkNotificationsRead", now })
      .then([{ type: "NotificationsRead", data: { upTo: now } }]);
  });

  test("is recorded again on every request: the read model decides what it changes", () => {
    spec
      .given([...registered, { type: "NotificationsRead", data: { upTo: now } }])
      .when({ type: "MarkNotificationsRead", now: "2026-03-04T11:00:00.000Z" })
      .then([{ type: "NotificationsRead", data: { upTo: "2026-03-04T11:00:00.000Z" } }]);
  });

  test("an unknown account is a 404", () => {
    spec.given([]).when({ type: "MarkNotificationsRead", now }).thenThrows(NotFoundError);
  });
});

describe("ChangePlan from a checkout (user decider)", () => {
  const spec = deciderSpec(userDecider);
  const paid: UserEvent = {
    type: "PlanChanged",
    data: { plan: "pro", interval: "month", previousPlan: "free", source: "checkout", reference: "ref-1", changedAt: now },
  };

  test("a reference already applied changes nothing, even after the plan moved on", () => {
    const downgraded: UserEvent = {
      type: "PlanChanged",
      data: { plan: "free", interval: "none", previousPlan: "pro", source: "operator", reference: null, changedAt: now },
    };
    spec
      .given([...registered, paid, downgraded])
      .when({ type: "ChangePlan", plan: "pro", interval: "month", source: "checkout", reference: "ref-1", now })
      .then([]);
  });

  test("a new reference changes the plan", () => {
    const events = userDecider.decide(
      { type: "ChangePlan", plan: "pro", interval: "year", source: "checkout", reference: "ref-2", now },
      [...registered, paid].reduce(userDecider.evolve, userDecider.initialState()),
    );
    expect(events.map((e) => e.type)).toEqual(["PlanChanged", "AllowanceGranted"]);
  });
});

describe("notification decisions", () => {
  test("low means below 60 s or below 10 % of the period's total", () => {
    expect(isBalanceLow(ledger(1_800, 0))).toBe(false);
    expect(isBalanceLow(ledger(1_800, 1_620))).toBe(false); // 180 left: exactly 10 %
    expect(isBalanceLow(ledger(1_800, 1_621))).toBe(true);
    expect(isBalanceLow(ledger(72_000, 60_000))).toBe(false);
    expect(isBalanceLow(ledger(0, 0, 59))).toBe(true); // a small top-up alone: under a minute
  });

  test("warns on the charge that crosses the line, not on the ones after it", () => {
    const before = ledger(1_800, 1_500);
    const crossed = charge(before, 200);
    expect(balanceLowAfterCharge(before, crossed)).toEqual({
      kind: "balance_low",
      taskId: null,
      title: "Balance low",
      message: "You have 1 min of transcription time left. Top up or change your plan to keep transcribing.",
    });
    expect(balanceLowAfterCharge(crossed, charge(crossed, 30))).toBeNull();
    expect(balanceLowAfterCharge(ledger(1_800, 0), charge(ledger(1_800, 0), 600))).toBeNull();
  });

  test("warns again after a top-up lifted the balance above the line", () => {
    const low = charge(ledger(1_800, 1_500), 250);
    const toppedUp = evolveLedger(low, { type: "SecondsToppedUp", data: { seconds: 3_600 } });
    expect(isBalanceLow(toppedUp)).toBe(false);
    expect(balanceLowAfterCharge(toppedUp, charge(toppedUp, 3_400))?.title).toBe("Balance low");
  });

  test("plan changes name the new plan and its billing", () => {
    expect(planChanged("pro", "month")).toEqual({
      kind: "plan_changed",
      taskId: null,
      title: "Plan changed",
      message: "Your plan is now Pro, billed monthly.",
    });
    expect(planChanged("free", "none").message).toBe("Your plan is now Free.");
  });

  test("task events name the task, and keep its id for a link", () => {
    expect(taskNotification({ type: "TaskFinished", data: { userId: 1, taskId: 5, name: "Interview" } }).message).toBe('"Interview" is transcribed and ready.');
    expect(taskNotification({ type: "TaskFinished", data: { userId: 1, taskId: 5, name: "Interview" } }).taskId).toBe(5);
    expect(taskNotification({ type: "ExportGenerated", data: { userId: 1, taskId: 7, format: "pdf", requested: true } }).taskId).toBe(7);
    expect(taskNotification({ type: "TaskFailed", data: { userId: 1, taskId: 5, name: "Interview", reason: "No audio track." } }).title).toBe("Task failed");
    expect(taskNotification({ type: "ExportReady", data: { userId: 1, taskId: 5, format: "pdf" } }).message).toBe(
      "The PDF export of task 5 is ready to download.",
    );
  });

  test("durations read naturally", () => {
    expect([0, 45, 60, 179, 3_600, 7_500].map(formatDuration)).toEqual(["0 s", "45 s", "1 min", "2 min", "1 h", "2 h 5 min"]);
  });
});
