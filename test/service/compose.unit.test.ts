import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSettingName } from "../../src/settings-schema.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { prerequisite } from "../support/prerequisites.ts";

/**
 * compose.yaml cannot be run on our build machines (no Docker engine), so this checks what can be checked without
 * one: Debian's `docker-compose config` (Compose v1, which interpolates `.env` and validates the file as the engine's
 * Compose would) refuses the file without its secrets and resolves it with a `.env` from scripts/compose-env.sh;
 * the resolved file has the services the design names, the role wiring, only the load balancer publishing a port,
 * every image pinned, and variables the service reads. Bun.YAML reads the file itself where no resolving is needed.
 */
type Service = {
  build?: unknown;
  image?: string;
  restart?: string;
  environment?: Record<string, unknown> | string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: unknown; disable?: boolean };
  deploy?: { replicas?: number };
  ports?: unknown[];
  volumes?: (string | { type?: string; source?: string })[];
};
type ComposeFile = { services: Record<string, Service>; volumes?: Record<string, unknown> } & Record<string, unknown>;

const root = join(import.meta.dir, "../..");
const composeText = readFileSync(join(root, "compose.yaml"), "utf8");
const raw = Bun.YAML.parse(composeText) as ComposeFile;
const caddyfile = readFileSync(join(root, "deploy/caddy/Caddyfile"), "utf8");
const operations = readFileSync(join(root, "docs/operations.md"), "utf8");
/** Each Scribe service and the role it plays: the API twice, behind the load balancer. */
const roles = { "api-1": "api", "api-2": "api", projections: "projections", workers: "workers" } as const;
const apiReplicas = ["api-1", "api-2"];
/** Run-to-completion setup jobs: no healthcheck, other services wait for them to exit 0. */
const oneShots = new Set(["minio-setup"]);
const secrets = ["SIGNING_SECRET", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD"] as const;
const theCommand = "npm run compose-env";
/**
 * Images pinned by exact version only, because no digest for the tag is published anywhere we could check; each
 * is listed in docs/operations.md with that reason. Everything else carries `@sha256:`.
 */
const withoutDigest: Record<string, string> = {
  eventstore: "docker.kurrent.io/kurrent-latest/kurrentdb:25.1.0",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's FROM line names its ARG so
  "Dockerfile: bun": "oven/bun:${BUN_VERSION}-debian",
};

const work = mkdtempSync(join(tmpdir(), "scribe-compose-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** scripts/compose-env.sh with these arguments, in a clean environment. */
function composeEnv(...args: string[]) {
  const run = Bun.spawnSync(["bash", join(root, "scripts/compose-env.sh"), ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: run.exitCode, stderr: run.stderr.toString() };
}

/** `docker-compose config` on compose.yaml with only `envFile` for variables (not the caller's environment or a .env of the checkout). */
async function composeConfig(envFile: string) {
  const run = Bun.spawn(["docker-compose", "--project-directory", root, "--file", join(root, "compose.yaml"), "--env-file", envFile, "config"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  return { exitCode, stdout, stderr };
}
/** docker-compose (Python) takes over a second a run on a busy build machine. */
const composeTimeout = 60_000;

function parseEnvFile(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));
}

function environment(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((entry) => [entry.split("=")[0]!, entry.split("=").slice(1).join("=")]));
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
}

function dependencies(service: Service): [string, string][] {
  const deps = service.depends_on ?? {};
  return Array.isArray(deps)
    ? deps.map((name) => [name, "service_started"])
    : Object.entries(deps).map(([name, dep]) => [name, dep.condition ?? "service_started"]);
}

/** What start-up would refuse in this environment (nothing is opened: loadConfig only reads). */
function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

/** The variables the Dockerfile sets with ENV: every role's container has them. */
function dockerfileEnvironment(): Record<string, string> {
  const text = readFileSync(join(root, "Dockerfile"), "utf8");
  return Object.fromEntries([...text.matchAll(/^ENV\s+([A-Za-z_][A-Za-z0-9_]*)=(\S*)/gm)].map((match) => [match[1]!, match[2]!]));
}

describe("compose.yaml as written", () => {
  test("uses the Compose Specification (no version key) and has every service the design names", () => {
    expect(raw.version).toBeUndefined();
    for (const name of ["eventstore", "mongodb", "nats", "minio", "minio-setup", "lb", ...Object.keys(roles)]) expect(raw.services[name]).toBeDefined();
  });

  test("no secret has a default: each is required, and the message names the command that writes them", () => {
    const uses = [...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)([^}]*)\}/g)].map(([, name, rest]) => ({ name: name!, rest: rest! }));
    for (const name of secrets) {
      const ofThis = uses.filter((use) => use.name === name);
      expect(ofThis.length).toBeGreaterThan(0);
      for (const use of ofThis) expect({ name, rest: use.rest }).toEqual({ name, rest: expect.stringMatching(/^:\?.*npm run compose-env/) });
    }
    expect(composeText).not.toMatch(/change-?me/i);
  });

  test("the Caddyfile balances over exactly the API replicas, probes each on /api/ready, and streams", () => {
    const upstreams = /reverse_proxy\s+(api-[^{\n]+)\{/.exec(caddyfile)?.[1]?.trim().split(/\s+/);
    expect(upstreams).toEqual(apiReplicas.map((name) => `${name}:3000`));
    expect(caddyfile).toMatch(/^\s*health_uri \/api\/ready$/m);
    expect(caddyfile).toMatch(/^\s*flush_interval -1$/m);
    // No request body limit of Caddy's own: the service takes uploads of up to 2 GiB (src/uploads/events.ts).
    expect(caddyfile).not.toMatch(/request_body|max_size/);
    // Storage requests reach MinIO as sent (the signature covers Host and path): nothing rewrites them.
    expect(caddyfile).toMatch(/reverse_proxy minio:9000$/m);
    expect(caddyfile).not.toMatch(/handle_path|uri strip|header_up\s+Host/);
  });
});

describe.skipIf(!prerequisite("docker-compose", Bun.which("docker-compose") !== null, "apt-get install docker-compose, or scripts/setup.sh --test"))(
  "compose.yaml resolved by docker-compose config",
  () => {
    const envFile = join(work, "generated.env");
    let generated: ReturnType<typeof composeEnv>;
    let secretsEnv: Record<string, string> = {};
    let resolved: Awaited<ReturnType<typeof composeConfig>>;
    let services: Record<string, Service> = {};
    beforeAll(async () => {
      generated = composeEnv(envFile);
      secretsEnv = parseEnvFile(readFileSync(envFile, "utf8"));
      resolved = await composeConfig(envFile);
      if (resolved.exitCode === 0) services = (Bun.YAML.parse(resolved.stdout) as ComposeFile).services;
    }, composeTimeout);

    test(
      "refuses to resolve without the secrets, naming the command that writes them",
      async () => {
        const empty = join(work, "empty.env");
        writeFileSync(empty, "");
        // None at all; each one on its own; and an empty value, which counts as none.
        const cases = [...secrets.map((name) => [name, null] as const), ["SIGNING_SECRET", ""] as const];
        const files = cases.map(([missing, value], index) => {
          const file = join(work, `without-${index}.env`);
          const lines = secrets.filter((name) => name !== missing).map((name) => `${name}=${secretsEnv[name]}`);
          writeFileSync(file, [...lines, ...(value === null ? [] : [`${missing}=${value}`])].join("\n"));
          return file;
        });
        const [none, ...each] = await Promise.all([empty, ...files].map(composeConfig));
        expect(none!.exitCode).not.toBe(0);
        expect(none!.stderr).toContain(theCommand);
        cases.forEach(([missing, value], index) => {
          const result = each[index]!;
          expect({ missing, value, exitCode: result.exitCode }).toEqual({ missing, value, exitCode: 1 });
          expect(result.stderr).toContain(`${missing} is not set. Run \`${theCommand}\``);
        });
      },
      composeTimeout,
    );

    test("resolves with the .env that scripts/compose-env.sh writes", () => {
      expect(generated).toEqual({ exitCode: 0, stderr: expect.stringContaining("wrote") });
      expect(resolved.stderr).toBe("");
      expect(resolved.exitCode).toBe(0);
      expect(environment(services["api-1"]!).SIGNING_SECRET).toBe(secretsEnv.SIGNING_SECRET!);
      expect(environment(services.minio!).MINIO_ROOT_PASSWORD).toBe(secretsEnv.MINIO_ROOT_PASSWORD!);
    });

    test("only the load balancer publishes a port: no database, bus or storage port reaches the host", () => {
      const publishing = Object.entries(services)
        .filter(([, service]) => (service.ports ?? []).length > 0)
        .map(([name]) => name);
      expect(publishing).toEqual(["lb"]);
      expect(services.lb!.ports).toEqual([{ published: 3000, target: 3000 }]);
    });

    test("every image is pinned by version and digest, but those documented as having no digest", () => {
      const images = Object.entries(services)
        .filter(([, service]) => service.image !== undefined)
        .map(([name, service]) => [name, service.image!] as const);
      const fromLines = [...readFileSync(join(root, "Dockerfile"), "utf8").matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)];
      images.push(...fromLines.map((match) => [`Dockerfile: ${match[2] ?? "final"}`, match[1]!] as const));
      expect(images.length).toBeGreaterThan(Object.keys(withoutDigest).length);
      for (const [name, image] of images) {
        if (withoutDigest[name] !== undefined) {
          expect({ name, image }).toEqual({ name, image: withoutDigest[name]! });
          continue;
        }
        // name:version@sha256:digest, where the version is a release, not a floating `latest` or major.
        expect({ name, image }).toEqual({ name, image: expect.stringMatching(/^[a-z0-9./-]+:[A-Za-z0-9._-]*\d[A-Za-z0-9._-]*@sha256:[0-9a-f]{64}$/) });
        // docs/operations.md says where each digest came from.
        expect({ name, documented: operations.includes(image.split("@")[1]!) }).toEqual({ name, documented: true });
      }
      for (const image of Object.values(withoutDigest)) expect(operations).toContain(image.split(":")[0]!);
      // Everything built here comes from that one Dockerfile.
      for (const [name, service] of Object.entries(services))
        if (service.build !== undefined) expect({ name, image: service.image }).toEqual({ name, image: undefined });
    });

    test("two API replicas behind the load balancer, which mounts the Caddyfile and serves the public address", () => {
      const apis = Object.keys(services).filter((name) => environment(services[name]!).ROLES === "api");
      expect(apis.sort()).toEqual(apiReplicas);
      expect(environment(services["api-1"]!)).toEqual(environment(services["api-2"]!));
      expect(services.lb!.volumes).toContain(`${join(root, "deploy/caddy/Caddyfile")}:/etc/caddy/Caddyfile:ro`);
      expect(dependencies(services.lb!).map(([name]) => name)).toEqual(expect.arrayContaining(apiReplicas));
      // Presigned URLs are signed for S3_PUBLIC_ENDPOINT: by default the load balancer's own address, like PUBLIC_URL.
      const env = environment(services["api-1"]!);
      expect(env.S3_PUBLIC_ENDPOINT).toBe("http://localhost:3000");
      expect(env.PUBLIC_URL).toBe(env.S3_PUBLIC_ENDPOINT!);
      expect(environment(services.lb!).S3_BUCKET).toBe(env.S3_BUCKET!);
    });

    test("each role is the one image with its own ROLES, wired to every cluster adapter", () => {
      for (const [name, role] of Object.entries(roles)) {
        const service = services[name]!;
        expect(service.build).toEqual({ context: root });
        const env = environment(service);
        expect(env.ROLES).toBe(role);
        for (const url of ["EVENTSTORE_URL", "MONGODB_URL", "NATS_URL", "S3_ENDPOINT"]) expect(env[url]).toBeTruthy();
      }
      for (const name of apiReplicas) expect(environment(services[name]!).PORT).toBe("3000");
    });

    test("every variable given to the app is a known setting, and the configuration they make starts", () => {
      const image = dockerfileEnvironment();
      expect(Object.keys(image).length).toBeGreaterThan(0); // the scan itself works
      for (const name of Object.keys(roles)) {
        const env = environment(services[name]!);
        expect(env.NODE_ENV).toBe("production");
        const unknown = Object.keys(env).filter((key) => !isSettingName(key));
        expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
        expect({ service: name, problems: problemsOf({ ...image, ...env }) }).toEqual({ service: name, problems: [] });
      }
    });

    test("depends_on targets exist and can meet their condition", () => {
      for (const [name, service] of Object.entries(services)) {
        for (const [target, condition] of dependencies(service)) {
          expect({ dependent: name, target, exists: target in services }).toEqual({ dependent: name, target, exists: true });
          if (condition === "service_healthy") expect(services[target]!.healthcheck?.test).toBeDefined();
          if (condition === "service_completed_successfully") expect(oneShots.has(target)).toBe(true);
        }
      }
    });

    test("every long-running service has a healthcheck, and each role's is /api/ready", () => {
      for (const [name, service] of Object.entries(services)) {
        if (oneShots.has(name)) expect(service.restart ?? "no").toBe("no");
        else expect({ name, test: service.healthcheck?.test !== undefined && !service.healthcheck.disable }).toEqual({ name, test: true });
      }
      // Every role serves readiness on its port, so every role's probe is readiness.
      for (const name of Object.keys(roles)) expect(JSON.stringify(services[name]!.healthcheck?.test)).toContain("/api/ready");
    });
  },
);

describe("compose.yaml's scaling and volumes", () => {
  test("projections run as one replica, workers as two; named volumes are declared", () => {
    expect(raw.services.projections!.deploy?.replicas ?? 1).toBe(1);
    expect(raw.services.workers!.deploy?.replicas).toBe(2);
    const declared = Object.keys(raw.volumes ?? {});
    for (const service of Object.values(raw.services)) {
      for (const volume of service.volumes ?? []) {
        const source = typeof volume === "string" ? volume.split(":")[0]! : (volume.source ?? "");
        if (/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source)) expect(declared).toContain(source);
      }
    }
  });
});

describe("scripts/compose-env.sh", () => {
  const file = join(work, "script", ".env");
  beforeAll(() => mkdirSync(join(work, "script")));

  test("writes every secret compose.yaml requires, generated, readable by its owner only", () => {
    expect(composeEnv(file).exitCode).toBe(0);
    const text = readFileSync(file, "utf8");
    const values = parseEnvFile(text);
    expect(Object.keys(values).sort()).toEqual([...secrets].sort());
    expect(values.SIGNING_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(values.MINIO_ROOT_USER).toMatch(/^scribe-[0-9a-f]{12}$/);
    expect(values.MINIO_ROOT_PASSWORD).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // What it documents is true: .env is ignored by git.
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toMatch(/^\/?\.env$/m);
  });

  test("refuses to overwrite an existing file unless --force, which writes new secrets", () => {
    const before = readFileSync(file, "utf8");
    const refused = composeEnv(file);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(file, "utf8")).toBe(before);

    expect(composeEnv("--force", file).exitCode).toBe(0);
    const after = parseEnvFile(readFileSync(file, "utf8"));
    for (const name of secrets) expect(after[name]).not.toBe(parseEnvFile(before)[name]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("rejects an unknown option without writing anything", () => {
    const other = join(work, "script", "other.env");
    expect(composeEnv("--forse", other).exitCode).toBe(2);
    expect(() => statSync(other)).toThrow();
  });
});
