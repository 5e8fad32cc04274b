import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { loadTranscriptionConfig } from "../../src/transcription/config.ts";
import { whisperModelNamed, whisperModels, whisperModelUrl } from "../../src/transcription/whisper-models.ts";

const fail = (message: string) => new Error(message);

describe("the whisper model catalogue", () => {
  test("every entry is ggml-<name>.bin with a size and a SHA-256 in hex, each name once", () => {
    expect(new Set(whisperModels.map((m) => m.name)).size).toBe(whisperModels.length);
    for (const entry of whisperModels) {
      expect(entry.file).toBe(`ggml-${entry.name}.bin`);
      expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(Number.isSafeInteger(entry.size) && entry.size > 10_000_000).toBe(true);
    }
    expect(whisperModels.map((m) => m.name)).toEqual(expect.arrayContaining(["tiny.en", "base.en", "small.en", "tiny", "base", "small"]));
  });

  test("a model's URL: Hugging Face's whisper.cpp repository, or a mirror's base with or without a trailing slash", () => {
    const base = whisperModelNamed("base.en")!;
    expect(whisperModelUrl(base, null)).toBe("https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-base.en.bin");
    expect(whisperModelUrl(base, "http://mirror.lan/whisper//")).toBe("http://mirror.lan/whisper/ggml-base.en.bin");
  });
});

describe("WHISPER_MODEL", () => {
  test("a catalogue name is the file `admin model pull` keeps under DATA_DIR; a path stays a path", () => {
    const named = loadTranscriptionConfig({ TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: "base.en", DATA_DIR: "/srv/scribe" }, fail);
    expect(named.whisper.model).toBe("/srv/scribe/models/whisper/ggml-base.en.bin");
    const relative = loadTranscriptionConfig({ WHISPER_MODEL: "tiny", DATA_DIR: "data" }, fail);
    expect(relative.whisper.model).toBe(resolve("data/models/whisper/ggml-tiny.bin"));
    const path = loadTranscriptionConfig({ TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: "/models/ggml-base.en.bin", DATA_DIR: "/srv" }, fail);
    expect(path.whisper.model).toBe("/models/ggml-base.en.bin");
    // Not in the catalogue: a file in the working directory, as before names existed.
    expect(loadTranscriptionConfig({ WHISPER_MODEL: "large-v9" }, fail).whisper.model).toBe("large-v9");
    expect(loadTranscriptionConfig({}, fail).whisper.model).toBeNull();
  });

  test("the service's configuration resolves it the same way", () => {
    const config = loadConfig({ TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: "small.en", DATA_DIR: "/var/lib/scribe" });
    expect(config.transcription.whisper.model).toBe("/var/lib/scribe/models/whisper/ggml-small.en.bin");
  });
});
