import { describe, test } from "bun:test";
import { uploadsProjection } from "../../src/uploads/uploads-projection.ts";
import { projectionSpec, type GivenEvent } from "../support/projection-spec.ts";

/** The uploads read model forgets an erased account's uploads: their keys name the files (src/erasure). */

const id = (n: number) => String(n).padStart(32, "0");
const signed = (n: number, userId: number): GivenEvent => ({
  streamName: `upload-${id(n)}`,
  type: "UploadSigned",
  data: { uploadId: id(n), userId, key: `uploads/${userId}/${id(n)}/private-${n}.mp3`, expiresAt: "2026-01-02T00:00:00.000Z" },
});
const ended = (n: number, type: "UploadAborted" | "UploadExpired"): GivenEvent => ({ streamName: `upload-${id(n)}`, type, data: {} });
const completed = (n: number, userId: number, taskId: number): GivenEvent => ({
  streamName: `upload-${id(n)}`,
  type: "UploadCompleted",
  data: { userId, taskId, completedAt: "2026-01-01T01:00:00.000Z" },
});
const erased = (userId: number): GivenEvent => ({
  streamName: `user-${userId}`,
  type: "AccountErased",
  data: { by: "user", erasedAt: "2026-01-01T02:00:00.000Z" },
});

describe("the uploads read model on AccountErased", () => {
  test("ended sessions go; an open one stays for the cleanup job to expire, without its file's name; others' stay", () =>
    projectionSpec(uploadsProjection)
      .given([
        signed(1, 7),
        signed(2, 7),
        ended(2, "UploadAborted"),
        signed(3, 7),
        ended(3, "UploadExpired"),
        signed(4, 7),
        completed(4, 7, 40),
        signed(5, 8),
        erased(7),
      ])
      .then({
        uploads: [
          { _id: id(1), userId: 7, status: "open", key: "[erased]" },
          { _id: id(5), userId: 8, status: "open", key: `uploads/8/${id(5)}/private-5.mp3` },
        ],
      }));
});
