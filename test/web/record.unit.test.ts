/**
 * The recorder's logic without a browser (src/web/app/record): which recording types are asked for, the file a
 * recording becomes (its name, its type, the file upload's refusals), the level meter's figures and words, the
 * clock, and the words for a microphone that cannot be had or a browser that cannot record.
 */
import { describe, expect, test } from "bun:test";
import { clock, levelOf, levelWords, spokenLength } from "../../src/web/app/record/level.ts";
import { extensionFor, recorderTypes, recordingFile, recordingName } from "../../src/web/app/record/recording-file.ts";
import { microphoneProblem, recordingUnavailable } from "../../src/web/app/record/support.ts";
import type { UploadFormats } from "../../src/web/app/upload/file-check.ts";

/** As GET /api/uploads/formats lists them (src/media/formats.ts), but for a small largest size. */
const formats: UploadFormats = {
  formats: [
    { extension: "wav", content_types: ["audio/wav"] },
    { extension: "ogg", content_types: ["audio/ogg", "application/ogg", "video/ogg"] },
    { extension: "opus", content_types: ["audio/opus", "audio/ogg"] },
    { extension: "webm", content_types: ["video/webm", "audio/webm"] },
    { extension: "m4a", content_types: ["audio/mp4", "audio/x-m4a"] },
    { extension: "mp4", content_types: ["video/mp4", "audio/mp4"] },
  ],
  max_size: 1000,
};
const startedAt = new Date(2026, 10, 26, 14, 3, 59);

describe("the recording's type and file", () => {
  test("the types asked of MediaRecorder: Opus first, only those both the browser and the server take", () => {
    expect(recorderTypes(formats, () => true)).toEqual(["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/webm", "audio/ogg", "audio/mp4"]);
    // Chromium
    expect(recorderTypes(formats, (type) => type.startsWith("audio/webm"))[0]).toBe("audio/webm;codecs=opus");
    // Safari
    expect(recorderTypes(formats, (type) => type === "audio/mp4")).toEqual(["audio/mp4"]);
    // A server that lists no WebM
    expect(recorderTypes({ ...formats, formats: formats.formats.filter((f) => f.extension !== "webm") }, (type) => type.startsWith("audio/webm"))).toEqual([]);
  });

  test("each type MediaRecorder names is filed under the first format that takes it", () => {
    expect(extensionFor("audio/webm;codecs=opus", formats)).toBe("webm");
    expect(extensionFor("audio/ogg; codecs=opus", formats)).toBe("ogg");
    expect(extensionFor("audio/mp4;codecs=mp4a.40.2", formats)).toBe("m4a");
    expect(extensionFor("AUDIO/WEBM", formats)).toBe("webm");
    expect(extensionFor("audio/x-unknown", formats)).toBeNull();
    expect(extensionFor("", formats)).toBeNull();
  });

  test("named for when it started, to the minute, in local time; typed as recorded, without the codecs", () => {
    expect(recordingName(startedAt)).toBe("Recording 2026-11-26 14:03");
    expect(recordingName(new Date(2027, 0, 5, 9, 7))).toBe("Recording 2027-01-05 09:07");
    const made = recordingFile({ body: new Blob([new Uint8Array(300)]), type: "audio/webm;codecs=opus", startedAt, seconds: 3.4 }, formats);
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.file).toMatchObject({ name: "Recording 2026-11-26 14:03.webm", contentType: "audio/webm", size: 300, duration: 3 });
    // Under half a second is still a second: the API takes no duration of 0 on complete.
    const short = recordingFile({ body: new Blob([new Uint8Array(10)]), type: "audio/ogg", startedAt, seconds: 0.2 }, formats);
    expect(short.ok && short.file).toMatchObject({ name: "Recording 2026-11-26 14:03.ogg", contentType: "audio/ogg", duration: 1 });
  });

  test("an empty recording, one over the largest upload and one of a type the server does not take are refused, in the file upload's words", () => {
    const reason = (size: number, type = "audio/webm") => {
      const made = recordingFile({ body: new Blob([new Uint8Array(size)]), type, startedAt, seconds: 5 }, formats);
      return made.ok ? "" : made.reason;
    };
    expect(reason(0)).toBe("“Recording 2026-11-26 14:03.webm” is empty.");
    expect(reason(2048)).toBe("“Recording 2026-11-26 14:03.webm” is 2 KiB; files of up to 1000 bytes can be uploaded.");
    expect(reason(10, "audio/x-unknown")).toBe("This browser records audio/x-unknown that the server does not accept; upload a file instead.");
  });
});

describe("the level meter and the clock", () => {
  test("silence is 0, full scale is 1, and speech sits between on a decibel scale", () => {
    expect(levelOf([])).toBe(0);
    expect(levelOf(new Float32Array(128))).toBe(0);
    expect(levelOf(new Float32Array(128).fill(1))).toBe(1);
    expect(levelOf(new Float32Array(128).fill(-1))).toBe(1);
    // -30 dBFS (about 0.0316 RMS): halfway on a 60 dB scale.
    expect(levelOf(new Float32Array(128).fill(10 ** (-30 / 20)))).toBeCloseTo(0.5, 5);
    // Under the floor (-60 dBFS) reads as silence.
    expect(levelOf(new Float32Array(128).fill(10 ** (-70 / 20)))).toBe(0);
  });

  test("the meter's words", () => {
    expect([0, 0.1, 0.3, 0.6, 0.95].map(levelWords)).toEqual(["no sound", "no sound", "quiet", "good", "too loud"]);
  });

  test("a clock and its spoken length", () => {
    expect([0, 3.9, 59, 60, 754, 3723].map(clock)).toEqual(["0:00", "0:03", "0:59", "1:00", "12:34", "1:02:03"]);
    expect(clock(-1)).toBe("0:00");
    expect([0, 1, 7, 60, 65, 3600, 3661].map(spokenLength)).toEqual([
      "0 seconds",
      "1 second",
      "7 seconds",
      "1 minute",
      "1 minute 5 seconds",
      "1 hour",
      "1 hour 1 minute 1 second",
    ]);
  });
});

describe("a browser that cannot record, and a microphone that cannot be had", () => {
  const able = { isSecureContext: true, hasGetUserMedia: true, hasMediaRecorder: true };

  test("Record is offered only in a secure page with getUserMedia and MediaRecorder, else the reason says what to do", () => {
    expect(recordingUnavailable(able)).toBeNull();
    expect(recordingUnavailable({ ...able, isSecureContext: false, hasGetUserMedia: false })).toStartWith("Recording needs a secure connection");
    expect(recordingUnavailable({ ...able, hasMediaRecorder: false })).toStartWith("This browser cannot record audio.");
    expect(recordingUnavailable({ ...able, hasGetUserMedia: false })).toStartWith("This browser cannot record audio.");
  });

  test("getUserMedia's errors, by name, in words with what to do", () => {
    const named = (name: string) => microphoneProblem(Object.assign(new Error("x"), { name }));
    expect(named("NotAllowedError")).toStartWith("Scribe may not use the microphone. To record, allow it for this site");
    expect(named("SecurityError")).toBe(named("NotAllowedError"));
    expect(named("NotFoundError")).toBe("No microphone was found. Connect one, or switch it on, then press Record again.");
    expect(named("OverconstrainedError")).toBe(named("NotFoundError"));
    expect(named("NotReadableError")).toStartWith("The microphone could not be started: another program may be using it.");
    expect(named("TypeError")).toStartWith("The microphone could not be started. Press Record to try again");
    // Whatever was thrown: not even an object.
    expect(microphoneProblem(undefined)).toBe(named("TypeError"));
    expect(microphoneProblem("NotAllowedError")).toBe(named("TypeError"));
    expect(microphoneProblem({ name: { toString: () => "NotFoundError" } })).toBe(named("NotFoundError"));
  });
});
