/**
 * The blobs a restore removes for the erasures it re-applies (src/backup/erased-blobs.ts): by the key layouts that name
 * a task or an account, and nothing else, not even another task whose id starts with the same digits.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { removeErasedBlobs } from "../../src/backup/erased-blobs.ts";

const root = mkdtempSync(join(tmpdir(), "scribe-erased-blobs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const upload = "0123456789abcdef0123456789abcdef";
const otherUpload = "fedcba9876543210fedcba9876543210";
const keys = [
  "transcripts/task-12/aa.json",
  "transcripts/task-12/aa.json~meta.json",
  "transcripts/task-123/bb.json",
  "exports/12/v1.pdf",
  "exports/123/v1.pdf",
  "work/recognition/12-1/chunk-0.json",
  "work/recognition/123-1/chunk-0.json",
  "media/7/12-abc/fetched.mp3",
  "media/7/123-abc/fetched.mp3",
  `uploads/7/${upload}/file.mp3`,
  `uploads/7/${otherUpload}/kept.mp3`,
  "uploads/7/livewav/recording.wav",
  "uploads/7/keptwav/recording.wav",
  "avatars/9/a.png",
  "uploads/9/x/file.mp3",
  "media/9/5-x/file.mp3",
  "avatars/90/a.png",
  "~uploads/11111111111111111111111111111111/upload.json",
  "~uploads/22222222222222222222222222222222/upload.json",
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [relative(root, join(dir, entry.name))]))
    .sort();
}

test("removes the erased task's, upload's and account's files by their layouts, and only those", async () => {
  for (const key of keys) {
    mkdirSync(dirname(join(root, key)), { recursive: true });
    writeFileSync(join(root, key), "bytes");
  }
  writeFileSync(join(root, "~uploads/11111111111111111111111111111111/upload.json"), JSON.stringify({ key: "uploads/9/y/big.mp3" }));
  writeFileSync(join(root, "~uploads/22222222222222222222222222222222/upload.json"), JSON.stringify({ key: "uploads/7/z/kept.mp3" }));
  const ledger = [
    { scope: "task-12", accountId: 7, erasedAt: "2026-01-01T00:00:00.000Z" },
    { scope: `upload-${upload}`, accountId: 7, erasedAt: "2026-01-01T00:00:00.000Z" },
    { scope: "account-9", accountId: 9, erasedAt: "2026-01-01T00:00:00.000Z" },
    { scope: "task-../../etc", accountId: 7, erasedAt: "2026-01-01T00:00:00.000Z" },
  ];
  // The live recording's path is known only from the backup's read models.
  const removed = await removeErasedBlobs(root, ledger, new Map([[12, "uploads/7/livewav/recording.wav"]]));
  expect(removed).toBe(10);
  expect(files(root)).toEqual(
    [
      "transcripts/task-123/bb.json",
      "exports/123/v1.pdf",
      "work/recognition/123-1/chunk-0.json",
      "media/7/123-abc/fetched.mp3",
      `uploads/7/${otherUpload}/kept.mp3`,
      "uploads/7/keptwav/recording.wav",
      "avatars/90/a.png",
      "~uploads/22222222222222222222222222222222/upload.json",
    ].sort(),
  );
});
