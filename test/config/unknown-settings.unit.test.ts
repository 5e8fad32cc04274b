import { describe, expect, test } from "bun:test";
import { editDistance, settingFamilies, unknownSettings } from "../../src/config/unknown-settings.ts";
import { settingNames } from "../../src/settings-schema.ts";

const unknown = (env: Record<string, string>) => unknownSettings(env, settingNames);

/** What a shell, npm, Bun, a CI runner, systemd, Docker and Kubernetes put in a process's environment. */
const realisticEnvironment: Record<string, string> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/root",
  PWD: "/app",
  OLDPWD: "/",
  SHELL: "/bin/bash",
  SHLVL: "1",
  USER: "root",
  LOGNAME: "root",
  HOSTNAME: "scribe-7d9f",
  LANG: "C.UTF-8",
  LANGUAGE: "en_US:en",
  LC_ALL: "C.UTF-8",
  TERM: "xterm-256color",
  COLORTERM: "truecolor",
  COLUMNS: "120",
  LINES: "40",
  TZ: "UTC",
  TMPDIR: "/tmp",
  EDITOR: "vi",
  PAGER: "less",
  MAIL: "/var/mail/root",
  DISPLAY: ":0",
  SSH_AUTH_SOCK: "/tmp/ssh-1/agent.1",
  DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/0/bus",
  XDG_RUNTIME_DIR: "/run/user/0",
  XDG_DATA_DIRS: "/usr/share",
  XDG_CONFIG_HOME: "/root/.config",
  HTTP_PROXY: "http://proxy:3128",
  HTTPS_PROXY: "http://proxy:3128",
  NO_PROXY: "localhost",
  http_proxy: "http://proxy:3128",
  SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt",
  CI: "true",
  GITHUB_ACTIONS: "true",
  RUNNER_TEMP: "/tmp",
  DEBIAN_FRONTEND: "noninteractive",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  INVOCATION_ID: "abc",
  JOURNAL_STREAM: "8:1234",
  npm_config_cache: "/root/.npm",
  npm_lifecycle_event: "start",
  npm_package_name: "scribe",
  npm_execpath: "/usr/lib/node_modules/npm/bin/npm-cli.js",
  INIT_CWD: "/app",
  BUN_INSTALL: "/root/.bun",
  BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
  NODE_OPTIONS: "--max-old-space-size=4096",
  NODE_EXTRA_CA_CERTS: "/etc/ssl/ca.pem",
  AWS_PROFILE: "prod",
  AWS_REGION: "eu-west-1",
  AWS_DEFAULT_REGION: "eu-west-1",
  AWS_SESSION_TOKEN: "token",
  NATS_CONTEXT: "prod",
  NATS_USER: "scribe",
  KUBERNETES_SERVICE_HOST: "10.0.0.1",
  KUBERNETES_SERVICE_PORT: "443",
  MONGODB_SERVICE_HOST: "10.0.0.7",
  MONGODB_SERVICE_PORT: "27017",
  MONGODB_PORT: "tcp://10.0.0.7:27017",
  MONGODB_PORT_27017_TCP: "tcp://10.0.0.7:27017",
  MONGODB_PORT_27017_TCP_ADDR: "10.0.0.7",
  MONGODB_PORT_27017_TCP_PROTO: "tcp",
  NATS_PORT_4222_TCP_PORT: "4222",
  SCRIBE_API_SERVICE_HOST: "10.0.0.9",
  SCRIBE_PORT: "tcp://10.0.0.9:3000",
  S3_SERVICE_HOST: "10.0.0.8",
  MINIO_ROOT_USER: "scribe",
  BUCKET: "scribe",
  JAVA_HOME: "/usr/lib/jvm",
  GOPATH: "/go",
  PYTHONPATH: "/app",
  FUZZ_SEED: "7",
  container: "docker",
};

describe("unknown settings", () => {
  test("names meant for Scribe are refused, with the nearest known name when there is one", () => {
    expect(
      unknown({
        RATE_LIMIT_PER_MINUTES: "5",
        TRANSCRIPTION_ENGNE: "whisper",
        S3_BUKET: "x",
        LOG_LEVL: "debug",
        PUBLIC_URI: "https://x",
        WORKERS_CONCURRENCY: "4",
        S3_SOMETHING_ELSE: "x",
      }),
    ).toEqual([
      "unknown setting LOG_LEVL (did you mean LOG_LEVEL?)",
      "unknown setting PUBLIC_URI (did you mean PUBLIC_URL?)",
      "unknown setting RATE_LIMIT_PER_MINUTES (did you mean RATE_LIMIT_PER_MINUTE?)",
      "unknown setting S3_BUKET (did you mean S3_BUCKET?)",
      "unknown setting S3_SOMETHING_ELSE (names starting with S3_ are Scribe's settings; bun run admin config lists them)",
      "unknown setting TRANSCRIPTION_ENGNE (did you mean TRANSCRIPTION_ENGINE?)",
      "unknown setting WORKERS_CONCURRENCY (did you mean WORKER_CONCURRENCY?)",
    ]);
  });

  test("a realistic environment of other programs' variables is never refused", () => {
    expect(unknown(realisticEnvironment)).toEqual([]);
    // ...and does not hide a real mistake among them.
    expect(unknown({ ...realisticEnvironment, SPHINX_HMMM: "/x" })).toEqual(["unknown setting SPHINX_HMMM (did you mean SPHINX_HMM?)"]);
  });

  test("known names, and the process's own environment, pass", () => {
    expect(unknown(Object.fromEntries(settingNames.map((name) => [name, "x"])))).toEqual([]);
    // The suite hands its own environment to every service process it starts.
    expect(unknownSettings(process.env, settingNames)).toEqual([]);
  });

  test("every family is one our settings use, so the rule refuses nothing we could never read", () => {
    for (const family of settingFamilies) expect({ family, used: settingNames.some((name) => name.startsWith(family)) }).toEqual({ family, used: true });
  });

  test("edit distance counts insertions, deletions, substitutions and swapped neighbours", () => {
    expect(editDistance("S3_BUCKET", "S3_BUCKET")).toBe(0);
    expect(editDistance("S3_BUKET", "S3_BUCKET")).toBe(1);
    expect(editDistance("LOG_LEVLE", "LOG_LEVEL")).toBe(1);
    expect(editDistance("PORT", "PWD")).toBe(3);
    expect(editDistance("AWS_REGION", "S3_REGION")).toBe(3);
    expect(editDistance("", "ABC")).toBe(3);
  });
});
