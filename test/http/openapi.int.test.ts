/**
 * The published contract, checked as client developers check one, with tools nobody here wrote:
 * Spectral's `spectral:oas` ruleset (zero errors) and @apidevtools/swagger-parser (valid), plus what the
 * issue asked of the document itself: OpenAPI 3.1, named components, integers as integers, timestamps as
 * date-time, every operation with its error answers and an operationId, files with their media types.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { openApiOptions } from "../../src/openapi.ts";
import { taskStatuses, type TaskStatus } from "../../src/tasks/events.ts";
import { exportFormats } from "../../src/exports/formats/index.ts";
import { planKeys } from "../../src/accounts/plans.ts";
import { offerKeys } from "../../src/billing/catalogue.ts";
import type { components } from "../../clients/typescript/schema.d.ts";

type Json = Record<string, unknown>;
type Operation = Json & { operationId: string; responses: Record<string, Json>; parameters?: Json[]; requestBody?: Json };

const root = join(import.meta.dir, "../..");
let app: TestApp;
let doc: Json & { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json> } };
let file: string;
const dir = mkdtempSync(join(tmpdir(), "scribe-openapi-"));

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  const response = await app.request("GET", "/swagger/json");
  expect(response.status).toBe(200);
  doc = (await response.json()) as typeof doc;
  file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc));
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));

/** Every subschema of the document, with where it is. */
function* schemas(value: unknown, at = ""): Generator<[string, Json]> {
  if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* schemas(item, `${at}/${i}`);
  else if (value && typeof value === "object") {
    yield [at, value as Json];
    for (const [key, child] of Object.entries(value)) {
      // A map of property names is not a schema itself (a property may be called `error`).
      if (key === "properties" && child && typeof child === "object") {
        for (const [name, property] of Object.entries(child)) yield* schemas(property, `${at}/properties/${name}`);
      } else yield* schemas(child, `${at}/${key}`);
    }
  }
}

describe("third-party tools accept the document", () => {
  test("Spectral (spectral:oas) reports no error", async () => {
    const spectral = Bun.spawn(
      [join(root, "node_modules/.bin/spectral"), "lint", "--ruleset", join(import.meta.dir, "spectral.yaml"), "--fail-severity", "error", file],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [out, code] = await Promise.all([new Response(spectral.stdout).text(), spectral.exited]);
    expect({ code, out: code === 0 ? "" : out }).toEqual({ code: 0, out: "" });
  }, 60_000);

  test("@apidevtools/swagger-parser validates it", async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });
});

describe("the document says what the service does", () => {
  test("the page at /swagger shows this document", async () => {
    expect(await (await app.request("GET", "/swagger")).text()).toContain("/swagger/json");
  });

  test("OpenAPI 3.1 with servers, described tags, and named component schemas", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect((doc.servers as Json[])[0]).toMatchObject({ url: app.config.publicUrl });
    for (const tag of doc.tags as Json[]) expect(String(tag.description).length).toBeGreaterThan(0);
    for (const name of ["Task", "TaskListItem", "Folder", "User", "Notification", "UploadSession", "Error", "ValidationError"])
      expect(Object.keys(doc.components.schemas)).toContain(name);
    expect(JSON.stringify(doc.paths["/api/tasks/{id}"]!.get!.responses["200"])).toContain("#/components/schemas/Task");
    expect(JSON.stringify(doc.paths["/api/tasks"]!.get!.responses["200"])).toContain("#/components/schemas/TaskList");
  });

  test("no 3.0 or Elysia leftovers: integers are integers, no nullable, no error keyword, no patternProperties", () => {
    for (const [at, schema] of schemas(doc)) {
      expect({ at, nullable: schema.nullable, error: schema.error, patternProperties: schema.patternProperties }).toEqual({
        at,
        nullable: undefined,
        error: undefined,
        patternProperties: undefined,
      });
      if (schema.format === "integer" || schema.format === "numeric") throw new Error(`${at}: a coercing ${schema.format} string`);
    }
    const task = doc.components.schemas.Task as { properties: Record<string, Json> };
    expect(task.properties.id).toEqual({ type: "integer" });
    expect(task.properties.size).toEqual({ type: ["integer", "null"] });
    expect(task.properties.created_at).toMatchObject({ type: "string", format: "date-time" });
  });

  test("every operation has a unique operationId, its body media types (JSON; multipart where a file goes), and the section 7 errors (OpenAI's on /v1)", () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { key, op } of operations()) {
      const types = Object.keys(((op.requestBody as Json | undefined)?.content ?? {}) as Json);
      const multipart: Record<string, string[]> = {
        "PUT /api/user": ["application/json", "multipart/form-data"],
        "POST /v1/audio/transcriptions": ["multipart/form-data"],
      };
      if (types.length > 0) expect({ key, types }).toEqual({ key, types: multipart[key] ?? ["application/json"] });
      expect(op.responses["500"]).toBeDefined();
      for (const [status, response] of Object.entries(op.responses)) {
        if (!status.startsWith("4") && !status.startsWith("5")) continue;
        // The section 7 shape: the Error (or ValidationError) component, or a schema of its own that requires `message`;
        // OpenAI's shape on its compatible routes, and no 422 there (OpenAI answers 400).
        const schema = JSON.stringify(response);
        const shape = key.includes(" /v1/")
          ? schema.includes("#/components/schemas/OpenAIError") && status !== "422"
          : schema.includes(status === "422" ? "ValidationError" : "#/components/schemas/Error") || /"required":\[[^\]]*"message"/.test(schema);
        expect({ key, status, shape }).toEqual({ key, status, shape: true });
      }
      if (Array.isArray(op.security) && op.security.length > 0) {
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["401", "429"]));
        expect(JSON.stringify(op.responses["429"])).toContain("Retry-After");
      }
    }
  });

  test("the statuses the spec names are documented where it names them", () => {
    const statuses = (key: string) => {
      const [method, path] = key.split(" ") as [string, string];
      return Object.keys(doc.paths[path]![method.toLowerCase()]!.responses);
    };
    expect(statuses("POST /api/tasks")).toEqual(expect.arrayContaining(["201", "401", "403", "422", "429"]));
    expect(statuses("POST /api/uploads/complete")).toEqual(expect.arrayContaining(["201", "403", "422", "429"]));
    expect(statuses("GET /api/tasks/{id}/audio")).toEqual(expect.arrayContaining(["200", "206", "404", "416"]));
    expect(statuses("GET /api/checkout/{plan}")).toEqual(expect.arrayContaining(["200", "404"]));
    expect(statuses("POST /api/login")).toEqual(expect.arrayContaining(["200", "401", "422", "429"]));
    expect(statuses("GET /api/tasks/{id}/download/{format}")).toEqual(expect.arrayContaining(["200", "202", "404", "409", "422"]));
    expect(statuses("POST /api/logout")).toEqual(expect.arrayContaining(["204", "401"]));
    expect(statuses("POST /v1/audio/transcriptions")).toEqual(expect.arrayContaining(["200", "400", "401", "403", "413", "429", "504"]));
  });

  test("downloads, audio and pages have their media types; logout has no body", () => {
    const download = doc.paths["/api/tasks/{id}/download/{format}"]!.get!.responses;
    expect(Object.keys(download["200"]!.content as Json)).toEqual(expect.arrayContaining(["text/plain", "application/pdf", "application/json"]));
    expect(JSON.stringify(download["202"])).toContain("processing");
    const audio = doc.paths["/api/tasks/{id}/audio"]!.get!.responses;
    expect(Object.keys(audio["206"]!.content as Json)).toContain("audio/*");
    expect(doc.paths["/api/logout"]!.post!.responses["204"]!.content).toBeUndefined();
    expect(Object.keys(doc.paths["/share/tasks/{id}"]!.get!.responses["200"]!.content as Json)).toEqual(["text/html", "application/json"]);
  });

  test("limits agree with the service: folder names at most 14, per_page 1 to 100", () => {
    const folderBody = JSON.stringify(doc.paths["/api/folders"]!.post!.requestBody);
    expect(folderBody).toContain('"maxLength":14');
    const perPage = doc.paths["/api/tasks"]!.get!.parameters!.find((p) => p.name === "per_page")!;
    expect(perPage.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
  });

  test("every operation is listed in the errors table of src/openapi.ts, and nothing else is", () => {
    const table = Object.keys(openApiOptions(app.config).errors).sort();
    expect(
      operations()
        .map(({ key }) => key)
        .sort(),
    ).toEqual(table);
  });
});

/** True only when the two types are the same (a `string` status would not be `TaskStatus`). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

describe("closed sets are enums, and the generated client's types say so", () => {
  const property = (schema: string, ...path: string[]) =>
    path.reduce<Json>(
      (at, name) => (name === "items" ? (at.items as Json) : ((at.properties as Record<string, Json>)[name] as Json)),
      doc.components.schemas[schema]!,
    );

  test("a task's status, its export formats and the plans are enums of every value the service has", () => {
    for (const schema of ["Task", "TaskListItem", "CreatedTask"]) expect(property(schema, "status")).toMatchObject({ type: "string", enum: [...taskStatuses] });
    expect(property("Task", "export", "allowed_formats", "items")).toEqual({ type: "string", enum: [...exportFormats] });
    expect(property("Task", "export", "heavy_formats", "items")).toEqual({ type: "string", enum: ["pdf", "docx"] });
    const format = doc.paths["/api/tasks/{id}/download/{format}"]!.get!.parameters!.find((p) => p.name === "format")!;
    expect(format.schema).toEqual({ type: "string", enum: [...exportFormats] });
    expect(property("User", "subscription", "plan_key")).toMatchObject({ type: "string", enum: [...planKeys] });
    expect(property("CheckoutOptions", "plan")).toMatchObject({ type: "string", enum: [...offerKeys] });
    // A nullable enum lists null among its values, or a task without a disk would fail it.
    expect(property("Task", "disk")).toEqual({ type: ["string", "null"], enum: ["objstore", "remote", "videolink", null] });
  });

  test("the generated client types a task's status as the union of its values", () => {
    const client = readFileSync(join(root, "clients/typescript/schema.d.ts"), "utf8");
    const task = client.slice(client.indexOf("        Task: {"), client.indexOf("        TaskListItem: {"));
    expect(task).toContain(`status: ${taskStatuses.map((status) => JSON.stringify(status)).join(" | ")};`);
    // And so `npm run typecheck` fails when it is not.
    const same: Same<components["schemas"]["Task"]["status"], TaskStatus> = true;
    expect(same).toBe(true);
  });
});
