/**
 * A client written from the spec alone, with the generated types and no casts: register, create a task
 * with its transcript, wait for it, read it, list it, export it, and meet the section 7 errors. The suite
 * type-checks it (tsc, clients/typescript/tsconfig.json) and runs it against a live service.
 */
import { createScribeClient, type components } from "./client.ts";

type Task = components["schemas"]["Task"];

export async function seedWorkflow(baseUrl: string, email: string): Promise<{ task: Task; listed: number; vtt: string; notFound: string; invalid: string[] }> {
  const anonymous = createScribeClient(baseUrl);
  const registered = await anonymous.POST("/api/register", {
    body: { name: "Spec Client", email, password: "correct horse", password_confirmation: "correct horse" },
  });
  if (!registered.data) throw new Error(`register: ${registered.error?.message}`);
  const scribe = createScribeClient(baseUrl, registered.data.token);

  const created = await scribe.POST("/api/tasks", {
    body: { disk: "objstore", name: "Stand-up", path: "uploads/standup.mp3", segments: [{ start: 0, end: 1500, text: "Good morning." }] },
  });
  if (!created.data) throw new Error(`create: ${created.error?.message}`);
  const id = created.data.id;

  let task: Task | undefined;
  for (let i = 0; i < 100; i++) {
    const read = await scribe.GET("/api/tasks/{id}", { params: { path: { id } } });
    if (!read.data) throw new Error(`read: ${read.error?.message}`);
    task = read.data;
    if (task.status === "finished") break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (!task) throw new Error("no task");

  const list = await scribe.GET("/api/tasks", { params: { query: { per_page: 10, status: "finished" } } });
  if (!list.data) throw new Error(`list: ${list.error?.message}`);

  const vtt = await scribe.GET("/api/tasks/{id}/download/{format}", { params: { path: { id, format: "vtt" } }, parseAs: "text" });
  if (vtt.data === undefined) throw new Error("download failed");

  // Section 7: the error shape, typed.
  const missing = await scribe.GET("/api/tasks/{id}", { params: { path: { id: 987_654_321 } } });
  const bad = await scribe.POST("/api/folders", { body: { name: "" } });
  return {
    task,
    listed: list.data.total,
    vtt: vtt.data,
    notFound: missing.error?.message ?? "",
    invalid: Object.keys(bad.error && "errors" in bad.error ? bad.error.errors : {}),
  };
}
