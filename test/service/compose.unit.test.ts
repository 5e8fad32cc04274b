import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isSettingName } from "../../src/config/schema.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";

/**
 * compose.yaml cannot be run on our build machines (no Docker engine), so this checks what can be
 * checked statically: the services the design names, the role wiring, and that every variable handed
 * to the app is one the service actually reads. Bun.YAML resolves anchors and `<<` merges the way
 * Compose does.
 */
type Service = {
  build?: unknown;
  restart?: string;
  environment?: Record<string, unknown> | string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: unknown; disable?: boolean };
  deploy?: { replicas?: number };
  volumes?: (string | { type?: string; source?: string })[];
};
type ComposeFile = { services: Record<string, Service>; volumes?: Record<string, unknown> } & Record<string, unknown>;

const root = join(import.meta.dir, "../..");
const compose = Bun.YAML.parse(await Bun.file(join(root, "compose.yaml")).text()) as ComposeFile;
const services = compose.services;
const roles = { api: "api", projections: "projections", workers: "workers" } as const;
/** Run-to-completion setup jobs: no healthcheck, other services wait for them to exit 0. */
const oneShots = new Set(["minio-setup"]);

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
async function dockerfileEnvironment(): Promise<Record<string, string>> {
  const text = await Bun.file(join(root, "Dockerfile")).text();
  return Object.fromEntries([...text.matchAll(/^ENV\s+([A-Za-z_][A-Za-z0-9_]*)=(\S*)/gm)].map((match) => [match[1]!, match[2]!]));
}

describe("compose.yaml (cluster profile)", () => {
  test("uses the Compose Specification (no version key) and has every service the design names", () => {
    expect(compose.version).toBeUndefined();
    for (const name of ["eventstore", "mongodb", "nats", "minio", "minio-setup", ...Object.keys(roles)]) expect(services[name]).toBeDefined();
  });

  test("each role is the one image with its own ROLES, wired to every cluster adapter", () => {
    for (const [name, role] of Object.entries(roles)) {
      const service = services[name]!;
      expect(service.build).toBe(".");
      const env = environment(service);
      expect(env.ROLES).toBe(role);
      for (const url of ["EVENTSTORE_URL", "MONGODB_URL", "NATS_URL", "S3_ENDPOINT"]) expect(env[url]).toBeTruthy();
    }
    expect(environment(services.api!).PORT).toBe("3000");
  });

  test("every variable given to the app is a known setting, and the configuration they make starts", async () => {
    expect(environment(services.api!).NODE_ENV).toBe("production");
    const image = await dockerfileEnvironment();
    expect(Object.keys(image).length).toBeGreaterThan(0); // the scan itself works
    for (const name of Object.keys(roles)) {
      const env = environment(services[name]!);
      const unknown = Object.keys(env).filter((key) => !isSettingName(key));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
      // Compose's ${VAR:-default} is filled in by Compose; its default is what the container gets.
      const filled = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, "$1")]));
      expect({ service: name, problems: problemsOf({ ...image, ...filled }) }).toEqual({ service: name, problems: [] });
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
    for (const role of Object.values(roles)) expect(JSON.stringify(services[role]!.healthcheck?.test)).toContain("/api/ready");
  });

  test("projections run as one replica; named volumes are declared", () => {
    expect(services.projections!.deploy?.replicas ?? 1).toBe(1);
    const declared = Object.keys(compose.volumes ?? {});
    for (const service of Object.values(services)) {
      for (const volume of service.volumes ?? []) {
        const source = typeof volume === "string" ? volume.split(":")[0]! : (volume.source ?? "");
        if (/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source)) expect(declared).toContain(source);
      }
    }
  });
});
