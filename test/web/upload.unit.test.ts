/**
 * The web app's upload logic without a browser (src/web/app/upload): which files are refused before anything is
 * sent, the parts sent in parallel and retried, progress, cancel and abort, speed and time left, link names.
 */
import { describe, expect, test } from "bun:test";
import { checkFile, type UploadFormats } from "../../src/web/app/upload/file-check.ts";
import { nameFromLink } from "../../src/web/app/upload/link-name.ts";
import {
  CompletionFailed,
  TransferError,
  UploadCancelled,
  uploadFile,
  type SignedPart,
  type UploadSession,
  type UploadTransport,
} from "../../src/web/app/upload/multipart-upload.ts";
import { ProgressMeter } from "../../src/web/app/upload/progress-meter.ts";
import { bytes } from "../../src/web/app/upload/units.ts";

const formats: UploadFormats = {
  formats: [
    { extension: "wav", content_types: ["audio/wav", "audio/x-wav"] },
    { extension: "mkv", content_types: ["video/x-matroska"] },
  ],
  max_size: 2 ** 31,
};

describe("checkFile", () => {
  test("a listed extension passes, with the browser's type when it is one of the format's, else the format's first", () => {
    expect(checkFile({ name: "talk.WAV", type: "audio/x-wav", size: 10 }, formats)).toEqual({ ok: true, contentType: "audio/x-wav" });
    expect(checkFile({ name: "film.mkv", type: "", size: 10 }, formats)).toEqual({ ok: true, contentType: "video/x-matroska" });
    expect(checkFile({ name: "talk.wav", type: "audio/vnd.wave", size: 10 }, formats)).toEqual({ ok: true, contentType: "audio/wav" });
  });

  test("another extension, an empty file and one over the largest size are refused, saying why", () => {
    const refusal = (name: string, size: number) => {
      const check = checkFile({ name, type: "", size }, formats);
      return check.ok ? "" : check.reason;
    };
    expect(refusal("notes.txt", 10)).toBe("“notes.txt” is not an audio or video format we can transcribe. Choose a file of type wav, mkv.");
    expect(refusal("noextension", 10)).toContain("not an audio or video format");
    expect(refusal("silence.wav", 0)).toBe("“silence.wav” is empty.");
    expect(refusal("huge.wav", 2 ** 31 + 1)).toBe("“huge.wav” is 2,147,483,649 bytes; files of up to 2,147,483,648 bytes can be uploaded.");
    expect(refusal("huge.wav", 3 * 2 ** 30)).toBe("“huge.wav” is 3 GiB; files of up to 2 GiB can be uploaded.");
  });
});

test("bytes reads as binary units", () => {
  expect([bytes(512), bytes(352_044), bytes(5 * 2 ** 20), bytes(1.5 * 2 ** 30)]).toEqual(["512 bytes", "344 KiB", "5 MiB", "1.5 GiB"]);
});

type Call = string;

/** A transport in memory: records calls, and fails a part's PUT as told. */
function fakeTransport(session: UploadSession, failures: Record<number, number[]> = {}) {
  const calls: Call[] = [];
  const received = new Map<number, number>();
  const inFlight = { now: 0, most: 0 };
  const transport: UploadTransport<{ id: number }> = {
    sign: async () => {
      calls.push("sign");
      return session;
    },
    signPart: async (_session, part) => {
      calls.push(`sign-part ${part}`);
      return { url: `/storage/${part}`, headers: {} };
    },
    putPart: async (signed: SignedPart, body, onProgress, signal) => {
      const part = Number(signed.url.split("/").pop());
      inFlight.most = Math.max(inFlight.most, ++inFlight.now);
      try {
        onProgress(Math.floor(body.size / 2));
        await Bun.sleep(5);
        if (signal.aborted) throw new UploadCancelled();
        const status = failures[part]?.shift();
        if (status !== undefined) throw new TransferError(status, `part ${part}: ${status}`);
        received.set(part, body.size);
        onProgress(body.size);
      } finally {
        inFlight.now--;
      }
    },
    complete: async () => {
      calls.push("complete");
      return { id: 7 };
    },
    abort: async () => {
      calls.push("abort");
    },
  };
  return { transport, calls, received, inFlight };
}

const session: UploadSession = { path: "uploads/1/u/a.wav", upload_id: "u", part_size: 100, part_count: 6 };
const file = { name: "a.wav", contentType: "audio/wav", size: 550, body: new Blob([new Uint8Array(550)]) };

describe("uploadFile", () => {
  test("every part of its size, 4 at a time, progress up to the whole size, then complete", async () => {
    const { transport, calls, received, inFlight } = fakeTransport(session);
    const progress: number[] = [];
    const task = await uploadFile(transport, file, { signal: new AbortController().signal, onProgress: (sent) => progress.push(sent) });
    expect(task).toEqual({ id: 7 });
    expect([...received.entries()].sort((a, b) => a[0] - b[0])).toEqual([
      [1, 100],
      [2, 100],
      [3, 100],
      [4, 100],
      [5, 100],
      [6, 50],
    ]);
    expect(inFlight.most).toBe(4);
    expect(progress.at(-1)).toBe(550);
    expect(Math.max(...progress)).toBe(550);
    expect(calls[0]).toBe("sign");
    expect(calls.at(-1)).toBe("complete");
  });

  test("a part that fails with a retryable status is signed and sent again", async () => {
    const { transport, calls, received } = fakeTransport(session, { 3: [503, 0] });
    await uploadFile(transport, file, { signal: new AbortController().signal, onProgress: () => {}, retryDelayMs: 1 });
    expect(calls.filter((call) => call === "sign-part 3")).toHaveLength(3);
    expect(received.get(3)).toBe(100);
  });

  test("a part that fails for good stops the upload, which is aborted on the server and not completed", async () => {
    const { transport, calls } = fakeTransport(session, { 2: [400] });
    const failed = uploadFile(transport, file, { signal: new AbortController().signal, onProgress: () => {}, retryDelayMs: 1 });
    await expect(failed).rejects.toThrow("part 2: 400");
    expect(calls).toContain("abort");
    expect(calls).not.toContain("complete");
  });

  test("cancel aborts the parts in flight and the upload on the server", async () => {
    const { transport, calls } = fakeTransport(session);
    const controller = new AbortController();
    const cancelled = uploadFile(transport, file, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(cancelled).rejects.toBeInstanceOf(UploadCancelled);
    expect(calls).toContain("abort");
    expect(calls).not.toContain("complete");
  });

  test("a refused complete keeps the session, so that the same upload can be completed again", async () => {
    const { transport, calls } = fakeTransport(session);
    transport.complete = async () => {
      throw new TransferError(429, "You already have 3 tasks in progress; wait for one to finish.");
    };
    const error = await uploadFile(transport, file, { signal: new AbortController().signal, onProgress: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompletionFailed);
    expect((error as CompletionFailed).session).toBe(session);
    expect((error as CompletionFailed).message).toContain("3 tasks in progress");
    expect(calls).not.toContain("abort");
  });
});

test("ProgressMeter: no speed for the first second, then bytes per second over the last window and the time left", () => {
  const meter = new ProgressMeter(10_000_000, 3000, 1000);
  expect(meter.sample(0, 0)).toEqual({ sent: 0, total: 10_000_000, bytesPerSecond: null, secondsLeft: null });
  expect(meter.sample(500_000, 500).bytesPerSecond).toBeNull();
  const rate = meter.sample(1_000_000, 1000);
  expect(rate.bytesPerSecond).toBe(1_000_000);
  expect(rate.secondsLeft).toBe(9);
  // Old samples leave the window: the speed follows the last 3 s.
  meter.sample(4_000_000, 4000);
  meter.sample(7_000_000, 5000);
  expect(meter.sample(9_000_000, 7000).bytesPerSecond).toBeCloseTo(5_000_000 / 3, 0);
});

test("nameFromLink: a file's name without its extension, else host and path", () => {
  expect(nameFromLink("https://example.com/talks/Keynote%202024.mp3?x=1")).toBe("Keynote 2024");
  expect(nameFromLink("https://www.youtube.com/watch?v=abc")).toBe("youtube.com/watch");
  expect(nameFromLink("https://vimeo.com/")).toBe("vimeo.com");
});
