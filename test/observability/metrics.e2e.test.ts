/**
 * `GET /metrics` of real service processes, read as Prometheus reads it: promtool (Debian's `prometheus`) must
 * accept the exposition, the series the issue names must be there with the values the traffic implies, routes
 * are templates, METRICS_TOKEN guards it, METRICS=off removes it, and a process without the api role serves it too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { segment } from "../support/tasks.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

const token = "scrape-secret-0123456789";
let service: RunningService;

beforeAll(async () => {
  service = await startServiceProcess({ METRICS_TOKEN: token, ...manyRequestsPerToken, TRANSCRIPTION_WORKER: "off" });
}, 60_000);
afterAll(async () => {
  await service?.stop();
});

const scrape = async (url: string, bearer: string | null = token) => {
  const response = await fetch(`${url}/metrics`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  return { response, text: await response.text() };
};

/** The value of one sample, e.g. `sample(text, 'scribe_tasks{status="finished"}')`; null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

async function promtool(text: string): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(["promtool", "check", "metrics"], { stdin: new Blob([text]), stdout: "pipe", stderr: "pipe" });
  const output = (await new Response(child.stdout).text()) + (await new Response(child.stderr).text());
  return { code: await child.exited, output };
}

async function registered(url: string): Promise<{ token: string; id: number }> {
  const email = `m${crypto.randomUUID().slice(0, 8)}@example.com`;
  const response = await fetch(`${url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Metrics", email, password: "password123", password_confirmation: "password123" }),
  });
  const body = (await response.json()) as { token: string; user: { id: number } };
  return { token: body.token, id: body.user.id };
}

describe("GET /metrics", () => {
  test("needs the METRICS_TOKEN as a bearer token when one is set: 401 in the API's error shape otherwise", async () => {
    for (const bearer of [null, "wrong-token"]) {
      const { response, text } = await scrape(service.url, bearer);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(typeof (JSON.parse(text) as { message: unknown }).message).toBe("string");
    }
  });

  test("promtool accepts it, and it counts requests by route template, tasks, events, jobs, queues and lag", async () => {
    const user = await registered(service.url);
    const auth = { authorization: `Bearer ${user.token}`, "content-type": "application/json" };
    const created = await fetch(`${service.url}/api/tasks`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ disk: "objstore", name: "Metered", path: "uploads/a.mp3", segments: [segment(0, 1000, "Hello there.")], duration: 1 }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    for (const path of [`/api/tasks/${id}`, "/api/tasks/987654321", "/api/tasks/987654322"]) await fetch(`${service.url}${path}`, { headers: auth });

    // The supplied transcript finishes the task through a worker; wait for the read model to say so, and for the
    // worker's queue to empty: it also gets the events that follow (the pdf and docx made after the task finished).
    let text = "";
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      ({ text } = await scrape(service.url));
      const finished = sample(text, 'scribe_tasks{status="finished"}') === 1;
      const done = sample(text, 'scribe_worker_jobs_total{worker="supplied-transcripts",outcome="done"}');
      if (finished && done && sample(text, 'scribe_queue_depth{worker="supplied-transcripts"}') === 0) break;
      await Bun.sleep(100);
    }
    const { response } = await scrape(service.url);
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");

    const checked = await promtool(text);
    expect(checked).toEqual({ code: 0, output: "" });

    for (const name of [
      "http_requests_total",
      "http_request_duration_seconds",
      "scribe_tasks",
      "scribe_queue_depth",
      "scribe_projection_lag_events",
      "scribe_projection_lag_seconds",
      "scribe_worker_jobs_total",
      "scribe_transcription_realtime_factor",
      "scribe_events_appended_total",
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
    ])
      expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain("# TYPE http_request_duration_seconds histogram");
    expect(text).toContain("# TYPE scribe_transcription_realtime_factor histogram");

    // Route templates, never raw paths: the two unknown ids are one series.
    expect(sample(text, 'http_requests_total{method="GET",route="/api/tasks/:id",status="404"}')).toBe(2);
    expect(sample(text, 'http_requests_total{method="GET",route="/api/tasks/:id",status="200"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/api/tasks",status="201"}')).toBe(1);
    expect(text).not.toContain("987654321");
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/api/tasks/:id",status="404"}')).toBe(2);

    expect(sample(text, 'scribe_tasks{status="finished"}')).toBe(1);
    expect(sample(text, 'scribe_tasks{status="failed"}')).toBe(0);
    expect(sample(text, 'scribe_events_appended_total{type="TaskCreated"}')).toBe(1);
    expect(sample(text, 'scribe_events_appended_total{type="UserRegistered"}')).toBe(1);
    expect(sample(text, 'scribe_worker_jobs_total{worker="supplied-transcripts",outcome="done"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'scribe_worker_jobs_total{worker="exports",outcome="failed"}')).toBe(0);
    expect(sample(text, 'scribe_queue_depth{worker="supplied-transcripts"}')).toBe(0);
    // Read-your-writes: once the task reads finished, the tasks projection has folded the log this far.
    expect(sample(text, 'scribe_projection_lag_seconds{projection="tasks"}')).not.toBeNull();
    expect(sample(text, 'scribe_projection_lag_events{projection="users"}')).not.toBeNull();
    expect(text).toContain("scribe_transcription_realtime_factor_count 0");
  });
});

test("METRICS=off: no /metrics at all", async () => {
  const quiet = await startServiceProcess({ METRICS: "off", TRANSCRIPTION_WORKER: "off" });
  try {
    expect((await fetch(`${quiet.url}/metrics`)).status).toBe(404);
  } finally {
    await quiet.stop();
  }
}, 60_000);

test("a process without the api role serves health, readiness and metrics on its port, and no API", async () => {
  const projections = await startServiceProcess({ ROLES: "projections", TRANSCRIPTION_WORKER: "off" });
  try {
    expect((await fetch(`${projections.url}/api/health`)).status).toBe(200);
    const ready = await fetch(`${projections.url}/api/ready`);
    expect(ready.status).toBe(200);
    const { text } = await scrape(projections.url, null);
    expect((await promtool(text)).code).toBe(0);
    expect(sample(text, 'scribe_projection_lag_events{projection="tasks"}')).toBe(0);
    expect(sample(text, 'http_requests_total{method="GET",route="/api/ready",status="200"}')).toBe(1);
    expect((await fetch(`${projections.url}/api/tasks`)).status).toBe(404);
  } finally {
    await projections.stop();
  }
}, 60_000);
