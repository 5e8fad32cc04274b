import { describe, expect, test } from "bun:test";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { readSetting } from "../../src/config/read-settings.ts";
import { effectiveText } from "../../src/config/reference.ts";
import { readSettings, schema, settingNames } from "../../src/settings-schema.ts";
import { exportSettings } from "../../src/exports/settings.ts";

/** The problems start-up would print for `env`, or none. */
function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

describe("reading the environment through the schema", () => {
  test("an empty environment gives every setting its fallback, and the Config of the embedded profile", () => {
    const read = readSettings({});
    expect(read.problems).toEqual([]);
    for (const name of settingNames)
      expect({ name, value: read.values[name], source: read.sources[name] }).toEqual({ name, value: schema[name].fallback, source: "default" });
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.dataDir).toBe(resolve("./data"));
    expect(config.publicUrl).toBe("http://localhost:3000");
    expect(config.roles).toEqual(["api", "projections", "workers"]);
    expect([config.eventStoreUrl, config.mongodbUrl, config.natsUrl, config.s3, config.idp, config.signingSecret]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(config.natsStream).toEqual({ maxBytes: 1024 ** 3 });
    expect(config.transcription.recognitionConcurrency).toBe(Math.max(1, cpus().length));
    expect([config.metricsEnabled, config.logLevel, config.mediaFetch.allowLoopback]).toEqual([true, "info", false]);
  });

  test("set values are parsed, trimmed, and a blank one counts as unset", () => {
    const config = loadConfig({
      PORT: " 8080 ",
      PUBLIC_URL: "https://scribe.example.com//",
      ROLES: "workers",
      RATE_LIMIT_PER_MINUTE: "",
      METRICS: "off",
      S3_ENDPOINT: "http://minio:9000",
      S3_BUCKET: "media",
      AWS_ACCESS_KEY_ID: "id",
      AWS_SECRET_ACCESS_KEY: "key",
      S3_FORCE_PATH_STYLE: "false",
      MEDIA_FETCH_FORBIDDEN_ADDRESSES: "127.0.0.66",
      SIGNING_SECRET: "shared",
    });
    expect(config.port).toBe(8080);
    expect(config.publicUrl).toBe("https://scribe.example.com");
    expect(config.roles).toEqual(["workers"]);
    expect(config.rateLimitPerMinute).toBe(10);
    expect(config.metricsEnabled).toBe(false);
    expect(config.s3).toEqual({
      endpoint: "http://minio:9000",
      publicEndpoint: null,
      bucket: "media",
      region: "us-east-1",
      accessKeyId: "id",
      secretAccessKey: "key",
      forcePathStyle: false,
    });
    expect(config.mediaFetch.forbiddenAddresses).toEqual(["127.0.0.66"]);
    expect(config.signingSecret).toBe("shared");
  });

  test("every problem at once, one line each, naming the variable and the rule", () => {
    expect(
      problemsOf({
        PORT: "abc",
        ROLES: "api,web",
        METRICS: "yes",
        LOG_LEVEL: "loud",
        EVENTSTORE_URL: "localhost:2113",
        MEDIA_FETCH_FORBIDDEN_ADDRESSES: "10.0.0.1,intranet",
        S3_ENDPOINT: "http://minio:9000",
        IDP_ISSUER: "https://idp.example.com",
        TRANSCRIPTION_ENGINE: "whisper",
        WHISPER_LANGUAGE: "english",
        RATE_LIMIT_PER_MINUTES: "5",
      }),
    ).toEqual([
      'PORT must be an integer from 0 to 65535, got "abc"',
      'ROLES must be a comma-separated list of api, projections, workers, got "api,web"',
      'EVENTSTORE_URL must be a URL starting with esdb:// or esdb+discover://, got "localhost:2113"',
      'MEDIA_FETCH_FORBIDDEN_ADDRESSES must be a comma-separated list of IP addresses (intranet is not one), got "10.0.0.1,intranet"',
      'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
      'METRICS must be on or off, got "yes"',
      "unknown setting RATE_LIMIT_PER_MINUTES (did you mean RATE_LIMIT_PER_MINUTE?)",
      "S3_ENDPOINT needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY",
      "IDP_ISSUER needs IDP_CLIENT_ID and IDP_CLIENT_SECRET",
      "TRANSCRIPTION_ENGINE=whisper needs WHISPER_MODEL (the path of a whisper.cpp ggml model file)",
      "WHISPER_LANGUAGE=english is not a language whisper knows (an ISO 639-1 code such as en, de, fr, or auto)",
    ]);
  });

  test("the error's message holds every problem, so callers that print only the message lose none", () => {
    const error = new ConfigError(["A must be x", "B must be y"]);
    expect(error.message).toBe("A must be x\nB must be y");
    expect(new ConfigError("one").problems).toEqual(["one"]);
  });

  test("admin config --check shows the values in effect, secrets only as set or not", () => {
    const text = effectiveText(schema, readSettings({ PORT: "8080", METRICS_TOKEN: "s3cr3t-token", SIGNING_SECRET: "another-secret" }));
    expect(text).not.toContain("s3cr3t-token");
    expect(text).not.toContain("another-secret");
    const row = (name: string) =>
      text
        .split("\n")
        .find((line) => line.startsWith(`${name} `))
        ?.split(/\s{2,}/);
    expect(row("PORT")).toEqual(["PORT", "8080", "environment"]);
    expect(row("METRICS_TOKEN")).toEqual(["METRICS_TOKEN", "(set)", "environment"]);
    expect(row("IDP_CLIENT_SECRET")).toEqual(["IDP_CLIENT_SECRET", "unset", "default"]);
    expect(row("PUBLIC_URL")).toEqual(["PUBLIC_URL", "http://localhost:$PORT", "default"]);
    expect(row("METRICS")).toEqual(["METRICS", "on", "default"]);
    expect(row("ROLES")).toEqual(["ROLES", "api,projections,workers", "default"]);
  });

  test("one setting alone, for the rendering thread: the same rule and fallback", () => {
    expect(readSetting(exportSettings, {}, "EXPORT_RENDER_THREAD")).toBe(true);
    expect(readSetting(exportSettings, { EXPORT_RENDER_THREAD: "0" }, "EXPORT_RENDER_THREAD")).toBe(false);
    expect(readSetting(exportSettings, {}, "EXPORT_FONT")).toBe("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc");
    expect(() => readSetting(exportSettings, { EXPORT_RENDER_THREAD: "off" }, "EXPORT_RENDER_THREAD")).toThrow(
      'EXPORT_RENDER_THREAD must be 1 or 0, got "off"',
    );
  });
});
