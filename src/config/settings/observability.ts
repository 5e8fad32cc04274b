import { flag, integer, oneOf, optionalText, secret } from "../setting.ts";

export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** Logs and metrics (docs/operations.md). */
export const observabilitySettings = {
  LOG_LEVEL: oneOf({ group: "observability", values: logLevels, fallback: "info", description: "The lowest level logged." }),
  METRICS: flag({
    group: "observability",
    words: ["on", "off"],
    fallback: true,
    description: "Prometheus metrics at GET /metrics (off: 404, and requests pay nothing for them).",
  }),
  METRICS_TOKEN: secret({ group: "observability", shownDefault: "unset: open", description: "When set, GET /metrics needs Authorization: Bearer <token>." }),
} as const;

/**
 * Read by the test suite, not by the service: listed because the suite's own environment reaches the
 * service processes it starts, and so that operators running the suite find them here.
 */
export const testSettings = {
  WHISPER_TEST_MODEL: optionalText({ group: "tests only", kind: "path", description: "A ggml model file: the suite runs a real whisper recognition." }),
  MONGODB_TEST_DB: optionalText({ group: "tests only", shownDefault: "scribe_contract", description: "The database MongoDB's contract suite uses." }),
  S3_TEST_KEEP_DIR: flag({ group: "tests only", words: ["1", "0"], fallback: false, description: "Keeps the S3 test server's folder after the tests." }),
  FUZZ_SEED: integer({ group: "tests only", min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 20261123, description: "The seed of the HTTP fuzz test." }),
  FUZZ_RUNS: integer({ group: "tests only", min: 1, max: 1_000_000, fallback: 50, description: "Cases per operation of the HTTP fuzz test." }),
} as const;
