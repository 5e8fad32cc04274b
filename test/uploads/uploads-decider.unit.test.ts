import { describe, expect, test } from "bun:test";
import { deciderSpec } from "../support/decider-spec.ts";
import { uploadDecider, type Completion } from "../../src/uploads/decider.ts";
import type { UploadEvent, UploadSession } from "../../src/uploads/events.ts";
import { NotFoundError, ValidationFailedError } from "../../src/core/errors.ts";
import { expectedPartSize, partPlan, partProblem } from "../../src/uploads/parts.ts";
import { contentTypeMatches, formatErrors, nameWithoutExtension, safeFileName } from "../../src/media/formats.ts";
import { isValidBlobKey } from "../../src/blobs/port.ts";

const spec = deciderSpec(uploadDecider);
const MiB = 1024 * 1024;
const session: UploadSession = {
  uploadId: "a".repeat(32),
  userId: 7,
  key: `uploads/7/${"a".repeat(32)}/call.mp3`,
  storageUploadId: "s3-upload",
  fileName: "call.mp3",
  contentType: "audio/mpeg",
  size: 20 * MiB,
  duration: null,
  partSize: 8 * MiB,
  partCount: 3,
  signedAt: "2026-11-01T10:00:00.000Z",
  expiresAt: "2026-11-02T10:00:00.000Z",
};
const before = "2026-11-01T12:00:00.000Z";
const after = "2026-11-02T10:00:00.000Z";
const signed: UploadEvent = { type: "UploadSigned", data: session };
const completion: Completion = { taskId: 42, name: "call", file: "call.mp3", duration: null, speakerDiarization: false };
const completed: UploadEvent = { type: "UploadCompleted", data: { userId: 7, ...completion, completedAt: before } };
const aborted: UploadEvent = { type: "UploadAborted", data: { userId: 7, abortedAt: before } };
const expired: UploadEvent = { type: "UploadExpired", data: { userId: 7, expiredAt: after } };
const part = (partNumber: number, userId = 7, key = session.key, now = before) => ({ type: "AuthorizePart" as const, userId, key, partNumber, now });
const completeCmd = (overrides: Partial<{ userId: number; key: string; now: string; completion: Completion }> = {}) => ({
  type: "CompleteUpload" as const,
  userId: 7,
  key: session.key,
  completion,
  now: before,
  ...overrides,
});

describe("upload decider", () => {
  test("sign records the session once", () => {
    spec.given([]).when({ type: "SignUpload", session }).then([signed]);
    spec.given([signed]).when({ type: "SignUpload", session }).then([]);
  });

  test("parts may be signed by the owner, within the part count, while the session is open", () => {
    spec.given([signed]).when(part(3)).then([]);
    spec
      .given([signed])
      .when(part(4))
      .thenThrows(ValidationFailedError, /part_number must be 1 to 3/);
    spec.given([signed]).when(part(1, 8)).thenThrows(NotFoundError);
    spec.given([]).when(part(1)).thenThrows(NotFoundError);
    spec
      .given([signed])
      .when(part(1, 7, "uploads/7/other.mp3"))
      .thenThrows(ValidationFailedError, /path/);
    spec
      .given([signed])
      .when(part(1, 7, session.key, after))
      .thenThrows(ValidationFailedError, /expired/);
    spec
      .given([signed, aborted])
      .when(part(1))
      .thenThrows(ValidationFailedError, /aborted/);
    spec
      .given([signed, completed])
      .when(part(1))
      .thenThrows(ValidationFailedError, /already complete/);
    spec
      .given([signed, expired])
      .when(part(1))
      .thenThrows(ValidationFailedError, /expired/);
  });

  test("complete records the task id once; completing again records nothing", () => {
    spec.given([signed]).when(completeCmd()).then([completed]);
    spec
      .given([signed, completed])
      .when(completeCmd({ completion: { ...completion, taskId: 43 } }))
      .then([]);
    spec
      .given([signed, completed])
      .when(completeCmd({ userId: 8 }))
      .thenThrows(NotFoundError);
    spec
      .given([signed])
      .when(completeCmd({ now: after }))
      .thenThrows(ValidationFailedError, /expired/);
    spec
      .given([signed, aborted])
      .when(completeCmd())
      .thenThrows(ValidationFailedError, /aborted/);
    spec
      .given([signed, expired])
      .when(completeCmd())
      .thenThrows(ValidationFailedError, /expired/);
    const state = [signed, completed].reduce(uploadDecider.evolve, uploadDecider.initialState());
    expect(state).toEqual({ status: "completed", session, completion });
  });

  test("abort: once, only the owner's, never a completed upload", () => {
    const abort = (userId = 7) => ({ type: "AbortUpload" as const, userId, key: session.key, now: before });
    spec.given([signed]).when(abort()).then([aborted]);
    spec.given([signed, aborted]).when(abort()).then([]);
    spec.given([signed, expired]).when(abort()).then([]);
    spec.given([signed]).when(abort(8)).thenThrows(NotFoundError);
    spec
      .given([signed, completed])
      .when(abort())
      .thenThrows(ValidationFailedError, /already complete/);
  });

  test("expire: only an open session, only once its expiry has come", () => {
    spec.given([signed]).when({ type: "ExpireUpload", now: before }).then([]);
    spec.given([signed]).when({ type: "ExpireUpload", now: after }).then([expired]);
    spec.given([signed, completed]).when({ type: "ExpireUpload", now: after }).then([]);
    spec.given([signed, aborted]).when({ type: "ExpireUpload", now: after }).then([]);
    spec.given([signed, expired]).when({ type: "ExpireUpload", now: after }).then([]);
    spec.given([]).when({ type: "ExpireUpload", now: after }).then([]);
  });
});

describe("part plan and checks", () => {
  test("parts follow S3's rules and stay few enough for the rate limit", () => {
    for (const size of [1, 5 * MiB, 8 * MiB, 8 * MiB + 1, 64 * MiB + 1, 1024 ** 3, 2_147_483_648]) {
      const { partSize, partCount } = partPlan(size);
      expect(partSize).toBeGreaterThanOrEqual(5 * MiB);
      expect(partSize).toBeLessThanOrEqual(5 * 1024 ** 3);
      expect(partCount).toBeGreaterThanOrEqual(1);
      expect(partCount).toBeLessThanOrEqual(8);
      expect(partSize * (partCount - 1)).toBeLessThan(size);
      expect(partSize * partCount).toBeGreaterThanOrEqual(size);
    }
    expect(partPlan(2_147_483_648)).toEqual({ partSize: 256 * MiB, partCount: 8 });
    expect(expectedPartSize(session, 1)).toBe(8 * MiB);
    expect(expectedPartSize(session, 3)).toBe(4 * MiB);
  });

  test("every part present with the planned size, or a message that says what is wrong", () => {
    const good = [1, 2, 3].map((n) => ({ partNumber: n, size: expectedPartSize(session, n), etag: `"${n}"` }));
    expect(partProblem(session, good)).toBeNull();
    expect(partProblem(session, good.slice(0, 2))).toMatch(/part 3 of 3 missing/);
    expect(partProblem(session, [])).toMatch(/parts 1, 2, 3 of 3 missing/);
    expect(partProblem(session, [good[0]!, { ...good[1]!, size: 5 }, good[2]!])).toMatch(/Part 2 has 5 bytes; it must have 8388608/);
    expect(partProblem(session, [...good, { partNumber: 4, size: 1, etag: "x" }])).toMatch(/Part 4 is beyond/);
  });
});

describe("formats and names", () => {
  test("the extension decides the format and the content types that go with it", () => {
    expect(contentTypeMatches("a.MP3", "audio/mpeg")).toBe(true);
    expect(contentTypeMatches("a.mp3", "Audio/MPEG; charset=binary")).toBe(true);
    expect(contentTypeMatches("a.mp3", "video/mp4")).toBe(false);
    expect(contentTypeMatches("a.mov", "video/quicktime")).toBe(true);
    expect(contentTypeMatches("a.constructor", "audio/mpeg")).toBe(false);
    expect(formatErrors("a.exe", "audio/mpeg", { file: "file", contentType: "content_type" })).toHaveProperty("file");
    expect(formatErrors("a.mkv", "video/mp4", { file: "file", contentType: "content_type" })).toHaveProperty("content_type");
    expect(formatErrors("a.mkv", "video/x-matroska", { file: "file", contentType: "content_type" })).toEqual({});
  });

  test("file names become safe key segments, task names lose the extension", () => {
    for (const name of ["Réunion d'équipe (1).mp3", "../../etc/passwd.wav", "...mp3", "日本語.m4a", "a".repeat(300) + ".flac", ".hidden.ogg"]) {
      const safe = safeFileName(name);
      expect(isValidBlobKey(`uploads/1/x/${safe}`)).toBe(true);
      expect(safe.length).toBeLessThanOrEqual(100);
    }
    expect(safeFileName("Réunion d'équipe (1).mp3")).toBe("Reunion_d_equipe_1.mp3");
    expect(safeFileName("日本語.m4a")).toBe("file.m4a");
    expect(nameWithoutExtension("Team call.final.mp3")).toBe("Team call.final");
    expect(nameWithoutExtension(".mp3")).toBe(".mp3");
  });
});
