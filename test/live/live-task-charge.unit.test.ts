/**
 * A live session's task is charged in the append that admits it, at most what the balance holds, and its slot's
 * release then charges nothing more; only its first attempt is ever charged (src/tasks/admission.ts, transcripts.ts).
 */
import { describe, expect, test } from "bun:test";
import { deciderSpec } from "../support/decider-spec.ts";
import { admissionDecider, type AdmissionCommand, type AdmissionEvent } from "../../src/tasks/admission.ts";
import { secondsCharged } from "../../src/tasks/transcripts.ts";
import { liveAdmission } from "../../src/tasks/slots.ts";

const now = "2026-11-27T03:00:00.000Z";
const spec = deciderSpec(admissionDecider);
const registered = { type: "UserRegistered", data: {} } as unknown as AdmissionEvent;
const toppedUp = (seconds: number) => ({ type: "SecondsToppedUp", data: { seconds } }) as unknown as AdmissionEvent;
const admitted: AdmissionEvent = { type: "TaskAdmitted", data: { taskId: 7, attempt: 1, admittedAt: now } };
const charged = (seconds: number) =>
  ({ type: "SecondsCharged", data: { taskId: 7, seconds, fromAllowance: 0, fromTopUp: seconds, chargedAt: now } }) as unknown as AdmissionEvent;
const admitLive = (seconds: number): AdmissionCommand => liveAdmission(7, seconds, now);
const release: AdmissionCommand = { type: "ReleaseTaskSlot", taskId: 7, attempt: 1, charge: { seconds: 40, now } };

describe("a live task's charge", () => {
  test("is taken as its slot is, at most what the balance holds", () => {
    spec
      .given([registered, toppedUp(100)])
      .when(admitLive(40))
      .then([admitted, charged(40)]);
    spec
      .given([registered, toppedUp(25)])
      .when(admitLive(40))
      .then([admitted, charged(25)]);
  });

  test("its release, with the charge a finish computes, charges nothing more; a repeated admission nothing at all", () => {
    spec
      .given([registered, toppedUp(100), admitted, charged(40)])
      .when(release)
      .then([{ type: "TaskSlotReleased", data: { taskId: 7, attempt: 1 } }]);
    spec
      .given([registered, toppedUp(100), admitted, charged(40)])
      .when(admitLive(40))
      .then([]);
  });

  test("only the first attempt of a live task counts; a task from a file is charged each finished attempt's cost", () => {
    const live = { transcript: { key: "k", sha256: "s", segments: 1, bytes: 2 }, origin: "live" };
    expect(secondsCharged(live, 40, 1)).toBe(40);
    expect(secondsCharged(live, 40, 2)).toBe(0);
    expect(secondsCharged({ transcript: null }, 40, 2)).toBe(40);
    expect(secondsCharged({ transcript: live.transcript }, 40, 1)).toBe(0);
  });
});
