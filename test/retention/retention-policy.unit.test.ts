import { describe, expect, test } from "bun:test";
import { retentionDecider, type RetentionCommand, type RetentionStreamEvent } from "../../src/retention/decider.ts";
import type { RetentionEvent } from "../../src/retention/events.ts";
import { dayMs, planRetention, type AgedTask, type RetentionState } from "../../src/retention/policy.ts";
import { NotFoundError, ValidationFailedError } from "../../src/core/errors.ts";
import { deciderSpec } from "../support/decider-spec.ts";

/** Which tasks are due and which need a warning, given the account's retention events, when the job runs at a time. */

type Given = RetentionStreamEvent;
const registered: Given = { type: "UserRegistered", data: {} };
const start = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const day = (n: number) => iso(start + n * dayMs);
const setTo = (days: number | null, on = 0, previousDays: number | null = null): Given => ({
  type: "RetentionSet",
  data: { days, previousDays, setAt: day(on) },
});
/** The warning planRetention gives at `when` for a retention of `days`. */
type Warning = Extract<RetentionEvent, { type: "RetentionWarningGiven" }>;
const warned = (days: number, when: number, taskCount: number): Warning => ({
  type: "RetentionWarningGiven",
  data: { userId: 7, days, taskCount, createdThrough: iso(start + when * dayMs + dayMs - days * dayMs), deleteAfter: day(when + 1), warnedAt: day(when) },
});
const stateOf = (events: Given[]) => events.reduce(retentionDecider.evolve, retentionDecider.initialState());
const task = (id: number, createdDay: number): AgedTask => ({ id, createdAt: day(createdDay) });
const plan = (events: Given[], tasks: AgedTask[], onDay: number) => planRetention(stateOf(events), tasks, new Date(start + onDay * dayMs));

describe("given an account's retention, when the job runs, then", () => {
  const tasks = [task(1, 0), task(2, 5), task(3, 9), task(4, 9.5), task(5, 20)];

  test("no retention: nothing is due and no one is warned, however old the tasks", () => {
    expect(plan([registered], tasks, 1000)).toEqual({ due: [], warning: null });
    expect(plan([registered, setTo(10), setTo(null, 1, 10)], tasks, 1000)).toEqual({ due: [], warning: null });
  });

  test("an erased account has nothing left to keep or delete", () => {
    expect(plan([registered, setTo(10), { type: "AccountErased", data: {} }], tasks, 1000)).toEqual({ due: [], warning: null });
  });

  test("tasks within their retention stay, and no warning comes before a task is a day from its end", () => {
    expect(plan([registered, setTo(10)], tasks, 8.5)).toEqual({ due: [], warning: null });
  });

  test("a task a day from its end is warned of, and not deleted yet", () => {
    expect(plan([registered, setTo(10)], tasks, 9)).toEqual({
      due: [],
      warning: { taskCount: 1, createdThrough: day(0), deleteAfter: day(10) },
    });
  });

  test("tasks already past a retention just set are not deleted unannounced: they are warned of, and deleted a day later", () => {
    const events = [registered, setTo(3, 21)];
    expect(plan(events, tasks, 21)).toEqual({ due: [], warning: { taskCount: 4, createdThrough: day(19), deleteAfter: day(22) } });
    expect(plan([...events, warned(3, 21, 4)], tasks, 21.5)).toEqual({ due: [], warning: null });
    // Task 5 (day 20) reaches its end on day 23: the next day's warning announces it, so it stays on day 22.
    expect(plan([...events, warned(3, 21, 4)], tasks, 22)).toEqual({
      due: [1, 2, 3, 4],
      warning: { taskCount: 1, createdThrough: day(20), deleteAfter: day(23) },
    });
  });

  test("the batch is deleted once its day of notice is over; a task created after the warning stays", () => {
    const events = [registered, setTo(10), warned(10, 9, 1)];
    expect(plan(events, tasks, 9.99).due).toEqual([]);
    expect(plan(events, tasks, 10)).toEqual({ due: [1], warning: null });
  });

  test("one warning a day at most: tasks reaching their end later that day wait for tomorrow's warning, never an hourly one", () => {
    const events = [registered, setTo(10), warned(10, 9, 1)];
    // Task 2 reaches its end on day 15; the next warnings come on day 14, not every hour before.
    for (const hour of [1, 2, 12, 23]) expect(plan(events, tasks, 9 + hour / 24).warning).toBeNull();
    expect(plan(events, tasks, 14).warning).toEqual({ taskCount: 1, createdThrough: day(5), deleteAfter: day(15) });
    // Tasks 3 and 4 are one batch: 9 and 9.5 both end within a day of day 18.5.
    const later = [...events, warned(10, 14, 1)];
    expect(plan(later, tasks, 18.5)).toEqual({ due: [1, 2], warning: { taskCount: 2, createdThrough: day(9.5), deleteAfter: day(19.5) } });
  });

  test("a task warned of is never counted again in a later warning", () => {
    const events = [registered, setTo(10), warned(10, 9, 1), warned(10, 14, 1)];
    expect(plan(events, [task(1, 0), task(2, 5)], 30)).toEqual({ due: [1, 2], warning: null });
  });

  test("a longer retention set after a warning keeps the warned tasks; a shorter one announces again before deleting", () => {
    const warnedOf = [registered, setTo(10), warned(10, 9, 1)];
    expect(plan([...warnedOf, setTo(100, 9.5, 10)], tasks, 10)).toEqual({ due: [], warning: null });
    const shorter = plan([...warnedOf, setTo(2, 9.5, 10)], tasks, 10);
    expect(shorter.due).toEqual([]);
    expect(shorter.warning?.taskCount).toBe(3);
  });
});

const spec = deciderSpec(retentionDecider);
const setRetention = (days: number | null, maxDays = 3650): RetentionCommand => ({ type: "SetRetention", days, maxDays, now: day(0) });

describe("setting the retention", () => {
  test("records the new value and the one it replaces", () =>
    spec
      .given([registered, setTo(30)])
      .when(setRetention(7))
      .then([setTo(7, 0, 30)]));

  test("the same value again records nothing; off is null", () => {
    spec
      .given([registered, setTo(7)])
      .when(setRetention(7))
      .then([]);
    spec.given([registered]).when(setRetention(null)).then([]);
    spec
      .given([registered, setTo(7)])
      .when(setRetention(null))
      .then([setTo(null, 0, 7)]);
  });

  test("refuses what is not a whole number from 1 to the cap, naming the cap", () => {
    for (const days of [0, -1, 7.5, 3651, 1e9, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])
      spec
        .given([registered])
        .when(setRetention(days))
        .thenThrows(ValidationFailedError, /from 1 to 3650/);
    spec
      .given([registered])
      .when(setRetention(3650))
      .then([setTo(3650)]);
  });

  test("an account that does not exist, or was erased, is not found", () => {
    spec.given([]).when(setRetention(7)).thenThrows(NotFoundError);
    spec
      .given([registered, setTo(7), { type: "AccountErased", data: {} }])
      .when(setRetention(7))
      .thenThrows(NotFoundError);
  });
});

describe("warning of a deletion", () => {
  const warn = (onDay: number, days = 10): RetentionCommand => {
    const { createdThrough, deleteAfter } = warned(days, onDay, 1).data;
    return { type: "WarnOfDeletion", userId: 7, days, taskCount: 1, createdThrough, deleteAfter, now: day(onDay) };
  };

  test("records the warning the plan asked for", () =>
    spec
      .given([registered, setTo(10)])
      .when(warn(9))
      .then([warned(10, 9, 1)]));

  test("a second job run at once (or within the day) adds nothing", () =>
    spec
      .given([registered, setTo(10), warned(10, 9, 1)])
      .when(warn(9.5))
      .then([]));

  test("a plan made under a retention changed since adds nothing", () =>
    spec
      .given([registered, setTo(20)])
      .when(warn(9, 10))
      .then([]));
});

test("the state stays small: a warning keeps the coverage, not the tasks", () => {
  const state: RetentionState = stateOf([registered, setTo(10), warned(10, 9, 1), warned(10, 14, 1)]);
  expect(state).toEqual({ registered: true, days: 10, maturedThrough: day(0), latest: { createdThrough: day(5), deleteAfter: day(15) } });
});
