import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileBlobStore } from "../../src/blobs/filesystem.ts";
import { holdDeletes, holdFolder } from "../../src/blobs/filesystem-hold.ts";
import { addHeldFiles } from "../../src/backup/blob-files.ts";

/**
 * A backup copies the log, then the blobs: what the store deletes in between (a task deleted meanwhile takes its
 * transcripts and media with it) is kept aside for the backup, and only while one runs.
 */
let root: string;
let store: FileBlobStore;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "scribe-hold-"));
  store = new FileBlobStore({ root, publicUrl: "http://unused", secret: "test" });
});
afterEach(() => rm(root, { recursive: true, force: true }));

const put = (key: string, text: string) => store.put(key, new TextEncoder().encode(text), { contentType: "application/json" });

describe("deletes held for a backup (src/blobs/filesystem-hold.ts)", () => {
  test("deleted while held: gone from the store, added to the copy with its content type; released, nothing is left", async () => {
    await put("transcripts/task-7/abc.json", "seven");
    await put("exports/7/1.pdf", "pdf");
    await put("kept/x.json", "kept");
    const hold = await holdDeletes(root);
    await store.delete("transcripts/task-7/abc.json");
    await store.delete("exports/7/1.pdf");
    await store.delete("never/stored.json");
    expect(await store.head("transcripts/task-7/abc.json")).toBeNull();

    const copy = await mkdtemp(join(tmpdir(), "scribe-hold-copy-"));
    try {
      // The copy had reached the export before it was deleted: what it holds is not replaced or counted again.
      const copied = new FileBlobStore({ root: copy, publicUrl: "http://unused", secret: "test" });
      await copied.put("exports/7/1.pdf", new TextEncoder().encode("pdf"), { contentType: "application/pdf" });
      const count = { files: 0, bytes: 0 };
      const held = await hold.end();
      expect(held.map((file) => file.name).sort()).toEqual([
        "exports/7/1.pdf",
        "exports/7/1.pdf~meta.json",
        "transcripts/task-7/abc.json",
        "transcripts/task-7/abc.json~meta.json",
      ]);
      await addHeldFiles(held, copy, count);
      expect(count.files).toBe(2);
      expect(readFileSync(join(copy, "transcripts/task-7/abc.json"), "utf8")).toBe("seven");
      expect((await copied.head("transcripts/task-7/abc.json"))?.contentType).toBe("application/json");
      expect((await copied.head("exports/7/1.pdf"))?.contentType).toBe("application/pdf");
    } finally {
      await hold.release();
      await rm(copy, { recursive: true, force: true });
    }
    expect((await readdir(root)).filter((name) => name.startsWith(holdFolder))).toEqual([]);
    expect(await store.head("kept/x.json")).not.toBeNull();
  });

  test("no backup running: a delete keeps nothing", async () => {
    await put("transcripts/task-8/abc.json", "eight");
    await store.delete("transcripts/task-8/abc.json");
    expect(existsSync(join(root, holdFolder))).toBe(false);
  });

  test("a backup that died stops holding: the next delete clears what it held", async () => {
    await put("a/one.json", "1");
    await put("a/two.json", "2");
    const hold = await holdDeletes(root);
    try {
      await store.delete("a/one.json");
      expect(await readdir(join(root, holdFolder))).toContain("a~one.json");
      await writeFile(join(root, holdFolder, "~until"), String(Date.now() - 1)); // its time passed: the backup is gone
      await store.delete("a/two.json");
      expect(existsSync(join(root, holdFolder))).toBe(false);
    } finally {
      await hold.release(); // (its timer only: what it held is gone already)
    }
  });
});
