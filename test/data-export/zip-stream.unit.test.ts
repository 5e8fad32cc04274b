import { describe, expect, test } from "bun:test";
import { zipStream, type ArchiveEntry } from "../../src/data-export/zip-stream.ts";
import { archiveName, mediaPath, safeName, taskFolder } from "../../src/data-export/layout.ts";

/** A stream of `size` bytes in 64 KiB chunks that says when it was cancelled. */
function bytes(size: number, seen: { cancelled: boolean }): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= size) return controller.close();
        controller.enqueue(new Uint8Array(65_536).fill(sent % 251));
        sent += 65_536;
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
}

describe("zipStream", () => {
  test("pull-based: an unread archive asks for no more entries; a cancelled one closes the entry in hand and its source", async () => {
    const asked: number[] = [];
    const seen = { cancelled: false };
    let returned = false;
    async function* entries(): AsyncGenerator<ArchiveEntry> {
      try {
        for (let i = 0; i < 50; i++) {
          asked.push(i);
          yield { path: `media/${i}.bin`, content: { stream: bytes(8 * 1024 * 1024, seen), size: 8 * 1024 * 1024 }, compress: false };
        }
      } finally {
        returned = true;
      }
    }
    let ended: unknown = "not yet";
    const reader = zipStream(entries(), (error) => {
      ended = error;
    }).getReader();
    await reader.read();
    await Bun.sleep(200);
    // 50 entries of 8 MiB are 400 MiB: with nothing read, the first is all that was asked for.
    expect(asked).toEqual([0]);
    await reader.cancel("gone");
    await Bun.sleep(50);
    expect(seen.cancelled).toBe(true);
    expect(returned).toBe(true);
    expect(ended).not.toBeNull();
    expect(ended).not.toBe("not yet");
  });

  test("a failure while the entries are read breaks the archive (an error, never a zip that looks whole)", async () => {
    async function* entries(): AsyncGenerator<ArchiveEntry> {
      yield { path: "a.txt", content: ["a"], compress: true };
      throw new Error("the blob store failed");
    }
    let ended: unknown = "not yet";
    const body = zipStream(entries(), (error) => {
      ended = error;
    });
    await expect(new Response(body).arrayBuffer()).rejects.toThrow("the blob store failed");
    await Bun.sleep(10);
    expect(String(ended)).toContain("the blob store failed");
  });

  test("a whole archive ends with null, and text is deflated", async () => {
    let ended: unknown = "not yet";
    async function* entries(): AsyncGenerator<ArchiveEntry> {
      yield { path: "a.txt", content: Array.from({ length: 1000 }, () => "the same words again "), compress: true };
    }
    const zip = new Uint8Array(await new Response(zipStream(entries(), (error) => (ended = error))).arrayBuffer());
    // Told once the writer is done, a moment after the last byte went out.
    await Bun.sleep(10);
    expect(ended).toBeNull();
    expect(zip.length).toBeLessThan(2_000);
    // "PK\x05\x06": the end of central directory record is there.
    expect(Buffer.from(zip).includes(Buffer.from([0x50, 0x4b, 0x05, 0x06]))).toBe(true);
  });
});

describe("the archive's names", () => {
  test("a task's name never leads outside its folder, whatever it holds", () => {
    const hostile = ["../../etc/passwd", "C:\\Windows\\system32", 'a/b\\c:d*e?f"g<h>i|j', "\u0000\u0007ctrl\u001b", "..", " . ", "__proto__"];
    hostile.push("😀".repeat(100), "\ud800 lone surrogate", "x".repeat(100_000));
    for (const name of hostile) {
      const folder = taskFolder({ id: 42, name });
      expect(folder.startsWith("tasks/42")).toBe(true);
      expect(folder.slice("tasks/".length)).not.toContain("/");
      expect(folder).not.toMatch(/[\\:*?"<>|\u0000-\u001f]/);
      expect(folder.endsWith(".")).toBe(false);
    }
    expect(taskFolder({ id: 7, name: "" })).toBe("tasks/7");
    expect(taskFolder({ id: 7, name: ".." })).toBe("tasks/7");
    expect(taskFolder({ id: 7, name: "Interview 会议" })).toBe("tasks/7 Interview 会议");
    expect([...safeName("😀".repeat(100), 60)]).toHaveLength(60);
  });

  test("media are named by their key's last part, numbered after the first", () => {
    expect(mediaPath("tasks/1", "uploads/3/abc/voice.mp3", 0)).toBe("tasks/1/media/voice.mp3");
    expect(mediaPath("tasks/1", "media/3/1-abc/clip.mp4", 1)).toBe("tasks/1/media/2-clip.mp4");
    expect(archiveName(new Date("2026-11-27T23:59:59Z"))).toBe("scribe-data-2026-11-27.zip");
  });
});
