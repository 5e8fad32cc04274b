import { describe, expect, test } from "bun:test";
import { deciderSpec } from "../support/decider-spec.ts";
import { taskDecider, type TaskCommand } from "../../src/tasks/decider.ts";
import { admissionDecider, type AdmissionEvent } from "../../src/tasks/admission.ts";
import { folderDecider, type FolderEvent } from "../../src/folders/decider.ts";
import { displayWidth, folderNameProblem } from "../../src/folders/name.ts";
import { exportVersion } from "../../src/tasks/export-version.ts";
import type { Disk, TaskEvent } from "../../src/tasks/events.ts";
import { ForbiddenError, NotFoundError, TooManyRequestsError, ValidationFailedError } from "../../src/core/errors.ts";

const now = "2026-03-04T05:06:07.089Z";
const task = (disk: Disk = "objstore") => ({
  taskId: 7,
  userId: 1,
  name: "Interview",
  file: "a.mp3",
  path: "uploads/a.mp3",
  disk,
  size: 100,
  duration: 60,
  cost: null,
  url: null,
  speakerDiarization: false,
  transcript: null,
});
const created = (disk: Disk = "objstore"): TaskEvent => ({ type: "TaskCreated", data: { ...task(disk), createdAt: now } });
const failed: TaskEvent = { type: "TaskFailed", data: { userId: 1, taskId: 7, attempt: 1, name: "Interview", reason: "boom" } };
const finished: TaskEvent = {
  type: "TaskFinished",
  data: { userId: 1, taskId: 7, attempt: 1, name: "Interview", transcript: null, duration: 60, cost: null, summary: null, mindmap: null },
};
const retried = (attempts: number, status: "pending" | "waiting" = "pending"): TaskEvent => ({
  type: "TaskRetried",
  data: { userId: 1, taskId: 7, attempt: attempts, status },
});
const transcript = { key: "transcripts/ab/ab.json", sha256: "ab", segments: 1, bytes: 70 };

describe("taskDecider", () => {
  const spec = deciderSpec(taskDecider);

  test("CreateTask on a new stream records TaskCreated with the command's time; a second create appends nothing", () => {
    spec.given([]).when({ type: "CreateTask", task: task(), now }).then([created()]);
    spec.given([created()]).when({ type: "CreateTask", task: task(), now }).then([]);
  });

  test("every other command on a missing or deleted task is not found", () => {
    const deleted: TaskEvent = { type: "TaskDeleted", data: { userId: 1, taskId: 7, wasInFlight: true, attempt: 1 } };
    const commands: TaskCommand[] = [
      { type: "RenameTask", name: "x" },
      { type: "DeleteTask" },
      { type: "RetryTask" },
      { type: "ShareTask" },
      { type: "FailTask", reason: "x" },
    ];
    for (const command of commands) {
      spec.given([]).when(command).thenThrows(NotFoundError);
      spec.given([created(), deleted]).when(command).thenThrows(NotFoundError);
    }
  });

  test("rename and move record a change only when something changes", () => {
    spec
      .given([created()])
      .when({ type: "RenameTask", name: "Call" })
      .then([{ type: "TaskRenamed", data: { userId: 1, taskId: 7, name: "Call" } }]);
    spec.given([created()]).when({ type: "RenameTask", name: "Interview" }).then([]);
    const folder = { id: 3, name: "Work" };
    spec
      .given([created()])
      .when({ type: "MoveTask", folder })
      .then([{ type: "TaskMoved", data: { userId: 1, taskId: 7, folder } }]);
    spec
      .given([created(), { type: "TaskMoved", data: { userId: 1, taskId: 7, folder } }])
      .when({ type: "MoveTask", folder })
      .then([]);
    spec
      .given([created(), { type: "TaskMoved", data: { userId: 1, taskId: 7, folder } }])
      .when({ type: "MoveTask", folder: null })
      .then([{ type: "TaskMoved", data: { userId: 1, taskId: 7, folder: null } }]);
    spec.given([created()]).when({ type: "MoveTask", folder: null }).then([]);
  });

  test("the cost of a task the service transcribed is what was charged: a correction of it is refused", () => {
    const started: TaskEvent = { type: "TranscriptionStarted", data: { userId: 1, taskId: 7 } };
    spec
      .given([created(), started, finished])
      .when({ type: "CorrectTaskDetails", cost: 0 })
      .thenThrows(ValidationFailedError, /charged/);
    spec
      .given([created(), started, finished])
      .when({ type: "CorrectTaskDetails", duration: 61 })
      .then([{ type: "TaskDetailsCorrected", data: { userId: 1, taskId: 7, duration: 61 } }]);
    spec
      .given([created(), finished])
      .when({ type: "CorrectTaskDetails", cost: 5 })
      .then([{ type: "TaskDetailsCorrected", data: { userId: 1, taskId: 7, cost: 5 } }]);
  });

  test("transcript edits, detail corrections and ratings", () => {
    spec
      .given([created()])
      .when({ type: "EditTranscript", transcript })
      .then([{ type: "TranscriptEdited", data: { userId: 1, taskId: 7, transcript } }]);
    spec.given([created()]).when({ type: "CorrectTaskDetails" }).then([]);
    spec
      .given([created()])
      .when({ type: "CorrectTaskDetails", duration: 90 })
      .then([{ type: "TaskDetailsCorrected", data: { userId: 1, taskId: 7, duration: 90 } }]);
    spec
      .given([created()])
      .when({ type: "CorrectTaskDetails", cost: 0, index: -2 })
      .then([{ type: "TaskDetailsCorrected", data: { userId: 1, taskId: 7, cost: 0, index: -2 } }]);
    spec
      .given([created()])
      .when({ type: "RateTask", quality: 4 })
      .then([{ type: "TaskRated", data: { userId: 1, taskId: 7, quality: 4 } }]);
  });

  test("sharing is idempotent both ways", () => {
    const shared: TaskEvent = { type: "TaskShared", data: { userId: 1, taskId: 7 } };
    spec.given([created()]).when({ type: "ShareTask" }).then([shared]);
    spec.given([created(), shared]).when({ type: "ShareTask" }).then([]);
    spec
      .given([created(), shared])
      .when({ type: "UnshareTask" })
      .then([{ type: "TaskUnshared", data: { userId: 1, taskId: 7 } }]);
    spec.given([created()]).when({ type: "UnshareTask" }).then([]);
  });

  test("deleting says whether the task still held a slot", () => {
    spec
      .given([created()])
      .when({ type: "DeleteTask" })
      .then([{ type: "TaskDeleted", data: { userId: 1, taskId: 7, wasInFlight: true, attempt: 1 } }]);
    spec
      .given([created(), finished])
      .when({ type: "DeleteTask" })
      .then([{ type: "TaskDeleted", data: { userId: 1, taskId: 7, wasInFlight: false, attempt: 1 } }]);
    spec
      .given([created(), failed])
      .when({ type: "DeleteTask" })
      .then([{ type: "TaskDeleted", data: { userId: 1, taskId: 7, wasInFlight: false, attempt: 1 } }]);
  });

  test("only a failed task is retried: objstore back to pending, remote and videolink to waiting", () => {
    spec
      .given([created()])
      .when({ type: "RetryTask" })
      .thenThrows(ValidationFailedError, /failed task/);
    spec.given([created(), finished]).when({ type: "RetryTask" }).thenThrows(ValidationFailedError);
    spec
      .given([created(), failed])
      .when({ type: "RetryTask" })
      .then([retried(2)]);
    spec
      .given([created("remote"), failed])
      .when({ type: "RetryTask" })
      .then([retried(2, "waiting")]);
    spec
      .given([created("videolink"), failed])
      .when({ type: "RetryTask" })
      .then([retried(2, "waiting")]);
  });

  test("at most 3 retries: attempts go 1 → 2 → 3 → 4, then the 4th retry is refused", () => {
    spec
      .given([created(), failed, retried(2), failed, retried(3), failed])
      .when({ type: "RetryTask" })
      .then([retried(4)]);
    spec
      .given([created(), failed, retried(2), failed, retried(3), failed, retried(4), failed])
      .when({ type: "RetryTask" })
      .thenThrows(ValidationFailedError, /3 times/);
  });

  test("the pipeline: start only from pending; finish and fail only while in flight", () => {
    const started: TaskEvent = { type: "TranscriptionStarted", data: { userId: 1, taskId: 7 } };
    spec.given([created()]).when({ type: "StartTranscription" }).then([started]);
    spec.given([created(), started]).when({ type: "StartTranscription" }).then([]);
    const finish: TaskCommand = { type: "FinishTask", transcript: null, duration: 60, cost: null, summary: null, mindmap: null };
    spec.given([created(), started]).when(finish).then([finished]);
    spec.given([created(), finished]).when(finish).then([]);
    spec.given([created(), failed]).when(finish).then([]);
    spec.given([created(), started]).when({ type: "FailTask", reason: "boom" }).then([failed]);
    spec.given([created(), failed]).when({ type: "FailTask", reason: "boom" }).then([]);
    // The failure of a retry names its attempt, so the slot worker frees that attempt's slot only.
    spec
      .given([created(), failed, retried(2)])
      .when({ type: "FailTask", reason: "boom" })
      .then([{ type: "TaskFailed", data: { ...failed.data, attempt: 2 } } as TaskEvent]);
  });
});

describe("admissionDecider (3 concurrent tasks per user)", () => {
  const spec = deciderSpec(admissionDecider);
  const registered = { type: "UserRegistered", data: {} } as unknown as AdmissionEvent;
  const plan = (p: string) => ({ type: "PlanChanged", data: { plan: p } }) as unknown as AdmissionEvent;
  const admitted = (taskId: number, attempt = 1): AdmissionEvent => ({ type: "TaskAdmitted", data: { taskId, attempt, admittedAt: now } });
  const released = (taskId: number, attempt = 1): AdmissionEvent => ({ type: "TaskSlotReleased", data: { taskId, attempt } });
  const admit = (taskId: number, disk: Disk = "objstore", abandoned: number[] = [], attempt = 1) => ({
    type: "AdmitTask" as const,
    taskId,
    attempt,
    disk,
    limit: 3,
    abandoned,
    now,
  });

  test("an unknown user is not found", () => {
    spec.given([]).when(admit(1)).thenThrows(NotFoundError);
  });

  test("admits up to the limit, then 429; a released slot admits again", () => {
    spec
      .given([registered, admitted(1), admitted(2)])
      .when(admit(3))
      .then([admitted(3)]);
    spec
      .given([registered, admitted(1), admitted(2), admitted(3)])
      .when(admit(4))
      .thenThrows(TooManyRequestsError, /3 tasks/);
    spec
      .given([registered, admitted(1), admitted(2), admitted(3), released(2)])
      .when(admit(4))
      .then([admitted(4)]);
  });

  test("admitting a task that already holds a slot appends nothing (a retried command)", () => {
    spec
      .given([registered, admitted(1), admitted(2), admitted(3)])
      .when(admit(3))
      .then([]);
  });

  test("video links need a paid plan; remote links do not", () => {
    spec
      .given([registered])
      .when(admit(1, "videolink"))
      .thenThrows(ForbiddenError, /Video links/);
    spec
      .given([registered])
      .when(admit(1, "remote"))
      .then([admitted(1)]);
    spec
      .given([registered, plan("pro")])
      .when(admit(1, "videolink"))
      .then([admitted(1)]);
    spec
      .given([registered, plan("pro"), plan("free")])
      .when(admit(1, "videolink"))
      .thenThrows(ForbiddenError);
  });

  test("abandoned admissions are freed first; unknown abandoned ids are ignored", () => {
    spec
      .given([registered, admitted(1), admitted(2), admitted(3)])
      .when(admit(4, "objstore", [1, 9]))
      .then([released(1), admitted(4)]);
    spec
      .given([registered, admitted(1), admitted(2), admitted(3)])
      .when(admit(4, "objstore", [9]))
      .thenThrows(TooManyRequestsError);
  });

  test("an upload's completion holds one slot: a repeat admits nothing (and names that task); the upload's end frees it", () => {
    const forUpload = (taskId: number): AdmissionEvent => ({ type: "TaskAdmitted", data: { taskId, attempt: 1, admittedAt: now, upload: "u1" } });
    spec
      .given([registered])
      .when({ ...admit(7), upload: "u1" })
      .then([forUpload(7)]);
    spec
      .given([registered, forUpload(7)])
      .when({ ...admit(8), upload: "u1" })
      .then([]);
    spec
      .given([registered, forUpload(7)])
      .when({ ...admit(8), upload: "u2" })
      .then([{ type: "TaskAdmitted", data: { taskId: 8, attempt: 1, admittedAt: now, upload: "u2" } }]);
    spec
      .given([registered, admitted(1), forUpload(7)])
      .when({ type: "ReleaseUploadSlot", upload: "u1" })
      .then([released(7)]);
    spec
      .given([registered, forUpload(7), released(7)])
      .when({ type: "ReleaseUploadSlot", upload: "u1" })
      .then([]);
  });

  test("releasing a slot is idempotent", () => {
    spec
      .given([registered, admitted(1)])
      .when({ type: "ReleaseTaskSlot", taskId: 1, attempt: 1 })
      .then([released(1)]);
    spec
      .given([registered, admitted(1), released(1)])
      .when({ type: "ReleaseTaskSlot", taskId: 1, attempt: 1 })
      .then([]);
    spec.given([registered]).when({ type: "ReleaseTaskSlot", taskId: 1, attempt: 1 }).then([]);
  });

  test("a finished task is charged as its slot is given back: once, allowance first, never below zero", () => {
    const granted = { type: "AllowanceGranted", data: { period: "2026-11", seconds: 1800, reason: "monthly", grantedAt: now } } as unknown as AdmissionEvent;
    const toppedUp = { type: "SecondsToppedUp", data: { seconds: 100, source: "operator", toppedUpAt: now } } as unknown as AdmissionEvent;
    const charge = (taskId: number, seconds: number) => ({ type: "ReleaseTaskSlot" as const, taskId, attempt: 1, charge: { seconds, now } });
    const charged = (taskId: number, seconds: number, fromAllowance: number, fromTopUp: number) =>
      ({ type: "SecondsCharged", data: { taskId, seconds, fromAllowance, fromTopUp, chargedAt: now } }) as unknown as AdmissionEvent;
    const funded = [registered, granted, toppedUp, admitted(1), admitted(2)];
    spec
      .given(funded)
      .when(charge(1, 1850))
      .then([released(1), charged(1, 1850, 1800, 50)]);
    // Redelivered completion: the slot is gone, so nothing is charged again.
    spec
      .given([...funded, released(1), charged(1, 1850, 1800, 50)])
      .when(charge(1, 1850))
      .then([]);
    spec
      .given([...funded, released(1), charged(1, 1850, 1800, 50)])
      .when(charge(2, 500))
      .then([released(2), charged(2, 50, 0, 50)]);
    // A charge written before charges moved onto the slot (the old charge worker) is not repeated.
    spec
      .given([...funded, charged(1, 1850, 1800, 50)])
      .when(charge(1, 1850))
      .then([released(1)]);
    spec
      .given(funded)
      .when(charge(1, 0))
      .then([released(1)]);
  });

  test("a slot belongs to one attempt: releasing an earlier attempt leaves the retry's slot held", () => {
    const retriedTask = [registered, admitted(1, 1), released(1, 1), admitted(1, 2)];
    spec.given(retriedTask).when({ type: "ReleaseTaskSlot", taskId: 1, attempt: 1 }).then([]);
    spec
      .given(retriedTask)
      .when({ type: "ReleaseTaskSlot", taskId: 1, attempt: 2 })
      .then([released(1, 2)]);
    spec
      .given([registered, admitted(1, 1), released(1, 1)])
      .when(admit(1, "objstore", [], 2))
      .then([admitted(1, 2)]);
  });
});

describe("folderDecider", () => {
  const spec = deciderSpec(folderDecider);
  const registered = { type: "UserRegistered", data: {} } as unknown as FolderEvent;
  const work: FolderEvent = { type: "FolderCreated", data: { folderId: 1, name: "Work" } };
  const home: FolderEvent = { type: "FolderCreated", data: { folderId: 2, name: "Home" } };

  test("an unknown user is not found", () => {
    spec.given([]).when({ type: "CreateFolder", folderId: 1, name: "Work" }).thenThrows(NotFoundError);
  });

  test("names are unique per user, case-insensitively; a deleted name is free again", () => {
    spec.given([registered]).when({ type: "CreateFolder", folderId: 1, name: "Work" }).then([work]);
    spec
      .given([registered, work])
      .when({ type: "CreateFolder", folderId: 3, name: "WORK" })
      .thenThrows(ValidationFailedError, /already been taken/);
    spec
      .given([registered, work, { type: "FolderDeleted", data: { folderId: 1, name: "Work" } }])
      .when({ type: "CreateFolder", folderId: 3, name: "work" })
      .then([{ type: "FolderCreated", data: { folderId: 3, name: "work" } }]);
  });

  test("rename: found case-insensitively, keeps the previous name, refuses another folder's name", () => {
    spec
      .given([registered, work])
      .when({ type: "RenameFolder", name: "work", newName: "Job" })
      .then([{ type: "FolderRenamed", data: { folderId: 1, name: "Job", previousName: "Work" } }]);
    spec
      .given([registered, work])
      .when({ type: "RenameFolder", name: "Work", newName: "WORK" })
      .then([{ type: "FolderRenamed", data: { folderId: 1, name: "WORK", previousName: "Work" } }]);
    spec.given([registered, work]).when({ type: "RenameFolder", name: "Work", newName: "Work" }).then([]);
    spec.given([registered, work, home]).when({ type: "RenameFolder", name: "Work", newName: "home" }).thenThrows(ValidationFailedError);
    spec.given([registered, work]).when({ type: "RenameFolder", name: "Nope", newName: "Job" }).thenThrows(NotFoundError);
  });

  test("delete: by any case, recording the stored name; unknown is not found", () => {
    spec
      .given([registered, work])
      .when({ type: "DeleteFolder", name: "WORK" })
      .then([{ type: "FolderDeleted", data: { folderId: 1, name: "Work" } }]);
    spec.given([registered, work]).when({ type: "DeleteFolder", name: "Home" }).thenThrows(NotFoundError);
  });
});

describe("folder names (14 columns, wide characters count two)", () => {
  test("displayWidth", () => {
    expect(displayWidth("")).toBe(0);
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("工作")).toBe(4);
    expect(displayWidth("ab工作")).toBe(6);
    expect(displayWidth("한국")).toBe(4);
    expect(displayWidth("かな")).toBe(4);
    expect(displayWidth("ＡＢ")).toBe(4);
    expect(displayWidth("é")).toBe(1);
  });

  test("folderNameProblem", () => {
    expect(folderNameProblem("工作工作工作工")).toBeNull();
    expect(folderNameProblem("工作工作工作工作")).toMatch(/14 characters/);
    expect(folderNameProblem("a".repeat(14))).toBeNull();
    expect(folderNameProblem("a".repeat(15))).toMatch(/14 characters/);
    expect(folderNameProblem("ab工作")).toBeNull();
    expect(folderNameProblem("abcdefghijkl工")).toBeNull();
    expect(folderNameProblem("abcdefghijklm工")).not.toBeNull();
    expect(folderNameProblem("")).toMatch(/required/);
    expect(folderNameProblem("   ")).toMatch(/required/);
    expect(folderNameProblem(" Work")).toMatch(/spaces/);
    expect(folderNameProblem("a\tb")).toMatch(/control/);
    expect(folderNameProblem("Uncategorized")).toMatch(/reserved/);
  });
});

describe("exportVersion", () => {
  test("is the change time as 17 digits, yyyyMMddHHmmssSSS in UTC", () => {
    expect(exportVersion(now, null)).toBe("20260304050607089");
    expect(exportVersion("2026-03-04T06:06:07.089+01:00", null)).toBe("20260304050607089");
    expect(exportVersion(now, null)).toMatch(/^\d{17}$/);
  });

  test("moves forward with time, and never repeats or goes back", () => {
    expect(exportVersion("2026-03-04T05:06:08.000Z", "20260304050607089")).toBe("20260304050608000");
    expect(exportVersion(now, "20260304050607089")).toBe("20260304050607090");
    expect(exportVersion("2026-01-01T00:00:00.000Z", "20260304050607089")).toBe("20260304050607090");
  });
});
