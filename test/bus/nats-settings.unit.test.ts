import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config.ts";

describe("the bus's settings", () => {
  test("NATS_STREAM_MAX_AGE_SECONDS is retired: an environment that still sets it starts, and the value is not used", () => {
    const config = loadConfig({ NATS_URL: "nats://localhost:4222", NATS_STREAM_MAX_AGE_SECONDS: "604800", NATS_STREAM_MAX_BYTES: "2097152" });
    expect(config.natsStream).toEqual({ maxBytes: 2_097_152 });
  });

  test("NATS_STREAM_MAX_BYTES below 1 MiB is refused", () => {
    expect(() => loadConfig({ NATS_STREAM_MAX_BYTES: "1000" })).toThrow("NATS_STREAM_MAX_BYTES must be an integer from 1048576");
  });
});
