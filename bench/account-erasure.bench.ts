// Erasing an account with many tasks (issue 32), embedded profile, the whole service in process:
//   bun bench/account-erasure.bench.ts [tasks]
// Default: 1,000 tasks (quick mode: 100). The account's tasks are created through the API, each with a supplied
// transcript (a blob of its own), plus an API key, a webhook and a folder; then DELETE /api/user with its password.
// Figures: the time until DELETE /api/user answers 204 (the account erased, every task deleted by its own command, its
// data keys destroyed), and until the workers have also removed every task's files (transcripts, search entries).
import { startTestApp } from "../test/support/test-app.ts";
import { scriptPace } from "../test/support/limits.ts";
import { workersCaughtUp } from "../test/support/eventually.ts";
import { blobKeys } from "../test/support/orphan-blobs.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const taskCount = numberArgument(0, 1000, 100);
const segments = [
  { start: 0, end: 2500, text: "Good morning and welcome to the weekly meeting." },
  { start: 2500, end: 5000, text: "Let us start with the numbers from last week." },
];

const app = await startTestApp({ ...scriptPace, WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1" });
try {
  const user = await app.register({ name: "Bench Erasure" });
  await app.setPlan(user.id, "pro");
  await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "bench" } });
  await app.request("POST", "/api/webhooks", { token: user.token, json: { url: "http://127.0.0.1:9/hooks" } });
  await app.request("POST", "/api/folders", { token: user.token, json: { name: "Bench" } });
  const seeding = performance.now();
  for (let created = 0; created < taskCount; ) {
    const response = await app.request("POST", "/api/tasks", {
      token: user.token,
      json: { disk: "objstore", name: `Meeting ${created}`, path: "uploads/a.mp3", segments },
    });
    if (response.status === 201) created++;
    else if (response.status === 429) await Bun.sleep(2);
    else throw new Error(`create: ${response.status} ${await response.text()}`);
  }
  await workersCaughtUp(app, undefined, 600_000);
  const transcriptsBefore = (await blobKeys(app, ["transcripts/"])).length;
  console.log(`${taskCount} tasks created in ${((performance.now() - seeding) / 1000).toFixed(1)} s; ${transcriptsBefore} transcript blobs`);

  const started = performance.now();
  const response = await app.request("DELETE", "/api/user", { token: user.token, json: { password: user.password } });
  const answered = performance.now() - started;
  if (response.status !== 204) throw new Error(`erase: ${response.status} ${await response.text()}`);
  await workersCaughtUp(app, undefined, 600_000);
  const cleaned = performance.now() - started;
  const transcriptsAfter = (await blobKeys(app, ["transcripts/"])).length;
  console.log(`transcript blobs left afterwards: ${transcriptsAfter}`);
  figure(`account erasure, ${taskCount} tasks: until DELETE /api/user answers`, answered / 1000, "s");
  figure(`account erasure, ${taskCount} tasks: until the workers removed its files`, cleaned / 1000, "s");
  figure(`account erasure: per task`, answered / taskCount, "ms");
} finally {
  await app.close();
}
