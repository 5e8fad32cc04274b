/**
 * `model`, `language`, `prompt` and `timestamp_granularities[]=word` through OpenAI's own client against the started
 * service, recognising real speech (espeak-ng) with PocketSphinx: the words `verbose_json` gives are the engine's own,
 * kept in the task's transcript, and the prompt is the task's vocabulary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createReadStream } from "node:fs";
import { type APIError, BadRequestError } from "openai";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { manyRequestsPerToken } from "../support/limits.ts";
import { spoken } from "../support/media-fixtures.ts";
import { clientOf, increasing, json, payingAccount, tasksOf, type Account } from "./openai-service.ts";

type StoredWord = { text: string; start: number; end: number; confidence: number | null };
type Detail = { engine: string | null; language: string | null; vocabulary: string[]; segments: { words: StoredWord[] }[] };

describe("recognition choices through the official openai client", () => {
  let service: RunningService;
  let account: Account;
  let clip = "";

  beforeAll(async () => {
    [service, clip] = await Promise.all([
      startServiceProcess({ ...manyRequestsPerToken }),
      spoken("Ask not what your country can do for you. Call Quetzalcoatl tomorrow."),
    ]);
    account = await payingAccount(service);
  }, 60_000);
  afterAll(() => service.stop(), 60_000);

  test("word granularity alone: the task's recognised words in seconds, in order, within the audio; language and prompt are the task's", async () => {
    const { data, response } = await clientOf(service, account.key)
      .audio.transcriptions.create({
        file: createReadStream(clip),
        model: "sphinx",
        language: "en",
        prompt: "Quetzalcoatl, Zyxel",
        response_format: "verbose_json",
        timestamp_granularities: ["word"],
      })
      .withResponse();

    expect(data).toMatchObject({ language: "english" });
    expect(data.segments).toBeUndefined();
    const words = data.words!;
    expect(words.length).toBeGreaterThan(4);
    expect(increasing(words)).toBe(true);
    expect(words[0]!.start).toBeGreaterThanOrEqual(0);
    expect(words.at(-1)!.end).toBeLessThanOrEqual(data.duration + 0.05);
    for (const word of words) expect(word.word).toMatch(/^[\p{L}\p{N}]/u);

    const taskId = Number(response.headers.get("x-task-id"));
    const detail = (await json(service, account.token, "GET", `/api/tasks/${taskId}?include=words`)).body as Detail;
    expect(detail).toMatchObject({ engine: "sphinx", language: "en", vocabulary: ["Quetzalcoatl", "Zyxel"] });
    // The engine's own times (ms in the transcript), not a share of each segment.
    const stored = detail.segments.flatMap((s) => s.words).filter((w) => /[\p{L}\p{N}]/u.test(w.text));
    expect(stored.length).toBe(words.length);
    expect(words.map((w) => [w.start, w.end])).toEqual(stored.map((w) => [w.start / 1000, w.end / 1000]));
  }, 120_000);

  test("PocketSphinx and another language: BadRequestError saying English only, and no task", async () => {
    const before = (await tasksOf(service, account)).length;
    const refused = await clientOf(service, account.key)
      .audio.transcriptions.create({ file: createReadStream(clip), model: "whisper-1", language: "de" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as APIError).error).toMatchObject({ type: "invalid_request_error", param: "language" });
    expect((refused as APIError).message).toContain("English only");
    expect((await tasksOf(service, account)).length).toBe(before);
  });
});
