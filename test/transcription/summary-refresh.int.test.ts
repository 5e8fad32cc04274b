import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, getTask, json, taskCommand, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { until } from "../support/eventually.ts";
import { startService } from "../../src/service.ts";
import { Semaphore } from "../../src/core/semaphore.ts";
import { SummaryRefresher } from "../../src/transcription/summary-refresh.ts";
import { refreshSettledSummaries } from "../../src/transcription/summary-refresh-job.ts";
import { ExtractiveSummarizer } from "../../src/transcription/summary/extractive.ts";

/** Edits settle after a second here (SUMMARY_REFRESH_AFTER_EDIT_SECONDS=1); 30 s in a newcomer's service. */
const settleMs = 1000;
const env = { ...scriptPace, TRANSCRIPTION_WORKER: "off", SUMMARY_REFRESH_AFTER_EDIT_SECONDS: String(settleMs / 1000) };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp(env);
});
afterAll(async () => {
  await app?.close();
});

const garden = [
  { start: 0, end: 4000, text: "The garden needs water every morning in summer." },
  { start: 4000, end: 8000, text: "Tomatoes in the garden want more water than herbs." },
  { start: 8000, end: 12000, text: "Next week we plant the garden beans." },
];
const orchard = "Bees visit the orchard.\nThe orchard bees make honey.\nHoney from the orchard sells well.";

const edit = async (on: TestApp, user: User, id: number, text: string) => {
  const response = await on.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { text } });
  expect(response.status).toBe(200);
};
const historyOf = async (on: TestApp, user: User, id: number) =>
  json<{ type: string; time?: string; created_at?: string }[]>(await on.request("GET", `/api/tasks/${id}/history`, { token: user.token }));
const refreshedSummary = (on: TestApp, user: User, id: number) =>
  until(
    "the summary to follow the edit",
    async () => {
      const task = await getTask(on, user, id);
      return task.summary_outdated === false && String(task.summary).includes("orchard") ? task : null;
    },
    10_000,
  );

async function finishedGardenTask(user: User): Promise<number> {
  const id = await createTask(app, user, { name: "Garden", segments: garden });
  const task = await waitForStatus(app, user, id, "finished", 5000);
  expect(task).toMatchObject({ summary_outdated: false, summary_failure: null });
  expect(task.summary as string).toContain("garden");
  return id;
}

describe("summaries follow edits", () => {
  test("an edit marks the summary out of date; once edits settle, summary and mind map are of the edited text and the mark clears", async () => {
    const user = await app.register();
    const id = await finishedGardenTask(user);
    await edit(app, user, id, orchard);
    const outdated = await getTask(app, user, id);
    expect(outdated).toMatchObject({ summary_outdated: true });
    expect(outdated.summary as string).toContain("garden"); // the old one, shown as out of date
    const after = await refreshedSummary(app, user, id);
    expect(after.summary as string).not.toContain("garden");
    expect((after.mindmap as string).toLowerCase()).toContain("orchard");
    expect(after.mindmap as string).toStartWith("# Garden\n");
  });

  test("edits that keep coming postpone the refresh until the last one has settled", async () => {
    const user = await app.register();
    const id = await finishedGardenTask(user);
    const editedUntil = Date.now() + 2.5 * settleMs;
    let edits = 0;
    while (Date.now() < editedUntil) {
      await edit(app, user, id, `The garden wants water, note ${edits++}.\nThe garden beans grow.\nThe herbs wait.`);
      await Bun.sleep(settleMs / 3);
    }
    const lastEdit = Date.now();
    expect((await historyOf(app, user, id)).map((e) => e.type)).not.toContain("SummaryRefreshed");
    expect(await getTask(app, user, id)).toMatchObject({ summary_outdated: true });
    await edit(app, user, id, orchard);
    await refreshedSummary(app, user, id);
    expect(Date.now() - lastEdit).toBeGreaterThanOrEqual(settleMs);
    // One refresh, of the last edit: none was made while the edits were coming.
    expect((await historyOf(app, user, id)).filter((e) => e.type === "SummaryRefreshed")).toHaveLength(1);
  });

  test("refresh-summary makes them at once and clears the mark", async () => {
    const quiet = await startTestApp({ ...env, SUMMARY_REFRESH_AFTER_EDIT_SECONDS: "0" }); // never by themselves: only marked
    try {
      const user = await quiet.register();
      const id = await createTask(quiet, user, { name: "Garden", segments: garden });
      await waitForStatus(quiet, user, id, "finished", 5000);
      await edit(quiet, user, id, orchard);
      await Bun.sleep(settleMs * 1.5);
      expect(await getTask(quiet, user, id)).toMatchObject({ summary_outdated: true });
      const response = await quiet.request("GET", `/api/tasks/${id}/refresh-summary`, { token: user.token });
      expect(response.status).toBe(200);
      const body = await json<{ summary: string; mindmap: string }>(response);
      expect(body.summary).toContain("orchard");
      expect(await getTask(quiet, user, id)).toMatchObject({ summary_outdated: false, summary: body.summary, mindmap: body.mindmap });
    } finally {
      await quiet.close();
    }
  });

  test("a failed refresh stays visible and is not tried again at that version; the next edit tries again and clears it", async () => {
    const user = await app.register();
    const id = await finishedGardenTask(user);
    await edit(app, user, id, "The garden beans grow.\nThe garden wants water.\nThe herbs wait.");
    // As the refresh would record it had the summariser failed on this version (before the edit settles).
    const reason = "Summary and mind map could not be made: the endpoint is down";
    await taskCommand(app, id, { type: "RecordSummaryFailure", reason, transcriptVersion: 2 });
    await Bun.sleep(settleMs * 2.5);
    expect(await getTask(app, user, id)).toMatchObject({ summary_outdated: true, summary_failure: reason });
    expect((await historyOf(app, user, id)).map((e) => e.type)).not.toContain("SummaryRefreshed");
    await edit(app, user, id, orchard);
    expect((await refreshedSummary(app, user, id)).summary_failure).toBeNull();
  });

  test("the refresh job sweeps for summaries due: none while the edit settles, then the edited task, once", async () => {
    const quiet = await startTestApp({ ...env, ROLES: "api,projections" }); // no workers, no jobs: the sweep below is the only refresher
    try {
      const user = await quiet.register();
      const id = await createTask(quiet, user, { name: "Garden", segments: garden });
      await taskCommand(quiet, id, { type: "FinishTask", transcript: null, duration: 12, cost: 0, summary: "The garden needs water.", mindmap: "# Garden" });
      await edit(quiet, user, id, orchard);
      const { eventStore: store, documents: db, transcripts } = quiet.adapters;
      const refresher = new SummaryRefresher({ store, db, transcripts, summarizer: new ExtractiveSummarizer(), heavyWork: new Semaphore(1), settleMs });
      expect(await refreshSettledSummaries(refresher)).toEqual([]);
      await Bun.sleep(settleMs);
      expect(await refreshSettledSummaries(refresher)).toEqual([id]);
      await until("the read model to show the refresh", async () => (await getTask(quiet, user, id)).summary_outdated === false);
      expect((await getTask(quiet, user, id)).summary as string).toContain("orchard");
      expect(await refreshSettledSummaries(refresher)).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  test("an edit no worker saw (the service stopped before it settled) is refreshed once the service is back", async () => {
    const stopped = await startTestApp({ ...env, ROLES: "api,projections" }); // no workers, no jobs: the edit is only in the log
    let restarted: Awaited<ReturnType<typeof startService>> | null = null;
    try {
      const user = await stopped.register();
      const id = await createTask(stopped, user, { name: "Garden", segments: garden });
      await taskCommand(stopped, id, { type: "FinishTask", transcript: null, duration: 12, cost: 0, summary: "The garden needs water.", mindmap: "# Garden" });
      await edit(stopped, user, id, orchard);
      await Bun.sleep(settleMs * 1.5);
      expect(await getTask(stopped, user, id)).toMatchObject({ summary_outdated: true, summary: "The garden needs water." });
      await stopped.service.stop();
      restarted = await startService({ ...stopped.config, roles: ["api", "projections", "workers"] }, stopped.adapters);
      const after = await until(
        "the summary to follow the edit after the restart",
        async () => {
          const response = await restarted!.app!.handle(
            new Request(`${stopped.origin}/api/tasks/${id}`, { headers: { authorization: `Bearer ${user.token}` } }),
          );
          const task = await json<Json>(response);
          return task.summary_outdated === false ? task : null;
        },
        15_000,
      );
      expect(after.summary as string).toContain("orchard");
    } finally {
      await restarted?.stop();
      await stopped.close();
    }
  }, 30_000);
});
