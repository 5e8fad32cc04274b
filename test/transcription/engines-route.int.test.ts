/**
 * `GET /api/transcription/engines` (issue 30, item 3): what the service offers, from its configuration, as the web
 * app's upload form reads it; authenticated like every /api route, and in the OpenAPI document.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { json } from "../support/tasks.ts";
import { whisperLanguages } from "../../src/transcription/engines/whisper-languages.ts";
import { writeTinyWhisperModel } from "../support/ggml-whisper-model.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

type Offered = { default: string; engines: { name: string; languages: string[] | null }[] };

const started: TestApp[] = [];
afterAll(async () => {
  await Promise.all(started.map((app) => app.close()));
});

/** A service that recognises nothing here: the route reads only the configuration. */
async function serviceWith(env: Record<string, string> = {}): Promise<TestApp> {
  const app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", ...env });
  started.push(app);
  return app;
}

async function offered(app: TestApp): Promise<Offered> {
  const user = await app.register();
  const response = await app.request("GET", "/api/transcription/engines", { token: user.token });
  expect(response.status).toBe(200);
  return json<Offered>(response);
}

describe("GET /api/transcription/engines", () => {
  test("a newcomer's service offers PocketSphinx, English only; without a credential it is a 401", async () => {
    const app = await serviceWith();
    expect(await offered(app)).toEqual({ default: "sphinx", engines: [{ name: "sphinx", languages: ["en"] }] });

    const anonymous = await app.request("GET", "/api/transcription/engines");
    expect(anonymous.status).toBe(401);
    expect(await json(anonymous)).toHaveProperty("message");
    expect((await app.request("GET", "/api/transcription/engines", { token: "not-a-token" })).status).toBe(401);
  });

  test("whisper once WHISPER_MODEL names a model that is there (its languages, from its header), openai with any language", async () => {
    const models = mkdtempSync(join(tmpdir(), "scribe-engines-"));
    try {
      const multilingual = await serviceWith({
        WHISPER_MODEL: writeTinyWhisperModel(join(models, "ggml-tiny.bin")),
        TRANSCRIPTION_OPENAI_URL: "http://127.0.0.1:9/v1",
      });
      expect(await offered(multilingual)).toEqual({
        default: "sphinx",
        engines: [
          { name: "sphinx", languages: ["en"] },
          { name: "whisper", languages: whisperLanguages.filter((code) => code !== "yue") },
          { name: "openai", languages: null },
        ],
      });

      const english = await serviceWith({
        TRANSCRIPTION_ENGINE: "whisper",
        WHISPER_MODEL: writeTinyWhisperModel(join(models, "ggml-own.bin"), { englishOnly: true }),
      });
      expect(await offered(english)).toEqual({
        default: "whisper",
        engines: [
          { name: "whisper", languages: ["en"] },
          { name: "sphinx", languages: ["en"] },
        ],
      });

      // Named beside the default but not there: not offered, so a task asking for it is a 422, not a failed task.
      const missing = await serviceWith({ WHISPER_MODEL: join(models, "ggml-base.bin") });
      expect(await offered(missing)).toEqual({ default: "sphinx", engines: [{ name: "sphinx", languages: ["en"] }] });
    } finally {
      rmSync(models, { recursive: true, force: true });
    }
  });

  test("the OpenAPI document describes its answer", async () => {
    const app = started[0] ?? (await serviceWith());
    type Operation = { security?: unknown[]; responses: Record<string, { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }> };
    const document = await json<{ paths: Record<string, { get?: Operation }> }>(await app.request("GET", "/swagger/json"));
    const operation = document.paths["/api/transcription/engines"]?.get;
    expect(operation?.security).toContainEqual({ bearer: [] });
    const schema = operation!.responses["200"]!.content["application/json"]!.schema;
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(["default", "engines"]);
  });
});
