/**
 * The Record page's live captions against a stand-in realtime server (playwright's WebSocket routing), in Chromium
 * with a fake microphone playing speech by espeak-ng: what the page sends (session.update for 16 kHz PCM, appends
 * of real-time audio, then commit and session.close on Stop), the captions it shows from deltas and completed turns,
 * an error event's message, the task `session.closed` names opened (once it comes); where the server refuses the
 * session, the recording uploaded as before with a quiet line. The recording is never uploaded when the session may
 * have kept its audio: a session the server ends with its task (the service stopping) stops the recording there and
 * offers that task; one cut off without a word, or that does not answer Stop within 30 s, leaves the recording in the
 * page to upload or discard; only one that says it kept nothing has its recording uploaded on Stop. The real server
 * end to end: live-record.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page, WebSocketRoute } from "playwright-core";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";
import { until } from "../support/eventually.ts";
import { spoken } from "../support/media-fixtures.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");
const haveEspeak = haveChromium && prerequisite("espeak-ng", Bun.which("espeak-ng") !== null, "apt-get install espeak-ng; npm test installs it");

type Sent = { type: string; [key: string]: unknown };

/** A realtime server as far as the page can tell: it answers as `script` says and keeps what the page sent. */
class StandIn {
  readonly sent: Sent[] = [];
  /** Samples appended, and when the first and the last append came (ms). */
  samples = 0;
  loudest = 0;
  firstAppend = 0;
  lastAppend = 0;
  socket: WebSocketRoute | null = null;

  constructor(private readonly script: (standIn: StandIn, event: Sent) => void) {}

  attach(route: WebSocketRoute): void {
    this.socket = route;
    route.onMessage((message) => {
      const event = JSON.parse(String(message)) as Sent;
      this.sent.push(event);
      if (event.type === "input_audio_buffer.append") this.heard(String(event.audio));
      this.script(this, event);
    });
    this.send({ type: "session.created", event_id: "event_0", session: { type: "transcription" } });
  }

  send(event: object): void {
    this.socket?.send(JSON.stringify(event));
  }

  private heard(audio: string): void {
    const bytes = Buffer.from(audio, "base64");
    expect(bytes.length % 2).toBe(0);
    for (let i = 0; i < bytes.length; i += 2) this.loudest = Math.max(this.loudest, Math.abs(bytes.readInt16LE(i)));
    this.samples += bytes.length / 2;
    this.lastAppend = performance.now();
    if (this.firstAppend === 0) this.firstAppend = this.lastAppend;
  }

  types(): string[] {
    return this.sent.map((event) => event.type).filter((type) => type !== "input_audio_buffer.append");
  }
}

const delta = (item: string, text: string) => ({
  type: "conversation.item.input_audio_transcription.delta",
  event_id: "e",
  item_id: item,
  content_index: 0,
  delta: text,
});
const completed = (item: string, transcript: string) => ({
  type: "conversation.item.input_audio_transcription.completed",
  event_id: "e",
  item_id: item,
  content_index: 0,
  transcript,
  usage: { type: "duration", seconds: 1 },
});

describe.skipIf(!haveEspeak)("live captions on the Record page, against a stand-in server", () => {
  let web: BrowserHarness;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const speech = await spoken("He could wait no longer. The words appear as they are spoken.");
    web = await startBrowserHarness({
      chromiumArgs: ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${speech}`],
    });
    await registerThroughForm(web.page, { name: "Ada Live", email: `live-client-${crypto.randomUUID()}@example.com` });
  }, 60_000);
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await web?.close();
  });

  /** A visit of its own (the same person), whose realtime socket goes to `standIn`; `clock`: with time the test can move on. */
  async function visit(standIn: StandIn, clock = false): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const context = await web.browser.newContext({ baseURL: web.service.url, storageState: await web.context.storageState() });
    contexts.push(context);
    await context.grantPermissions(["microphone"], { origin: web.origin });
    await context.routeWebSocket(/\/v1\/realtime\?intent=transcription$/, (route) => standIn.attach(route));
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    if (clock) await page.clock.install();
    const requests: string[] = [];
    context.on("request", (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    // The task page of the stand-in's made-up task answers 404, which is the app working; anything else is an error.
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 404/.test(message.text())) errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto("/new");
    await page.getByRole("heading", { name: "Or record from the microphone" }).waitFor();
    return { page, requests, errors };
  }

  test("captions as the server sends them, an error's message; Stop commits, closes, and opens the task session.closed names", async () => {
    const standIn = new StandIn((server, event) => {
      if (event.type === "session.update") server.send({ type: "session.updated", event_id: "e", session: event.session });
      if (event.type !== "session.close") return;
      server.send(completed("item_2", "The words appear."));
      // A slow end (a long final pass): the page waits for the task rather than uploading meanwhile.
      setTimeout(() => server.send({ type: "session.closed", event_id: "e", task_id: 987_654 }), 1000);
    });
    const { page, requests, errors } = await visit(standIn);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await until("the session configured", async () => standIn.types().includes("session.update") || null, 15_000, 50);
    expect(standIn.sent.find((event) => event.type === "session.update")).toEqual({
      type: "session.update",
      session: {
        type: "transcription",
        audio: { input: { format: { type: "audio/pcm", rate: 16_000 }, transcription: { model: "whisper-1" }, turn_detection: { type: "server_vad" } } },
      },
    });

    const log = page.getByRole("log", { name: "Live captions" });
    standIn.send(delta("item_1", "he could"));
    standIn.send(delta("item_1", " wait"));
    await page.getByText("he could wait", { exact: true }).waitFor();
    standIn.send(completed("item_1", "He could wait no longer."));
    standIn.send(delta("item_2", "the words"));
    await log.getByText("He could wait no longer.").waitFor();
    await page.getByText("the words", { exact: true }).waitFor();
    standIn.send({ type: "error", event_id: "e", error: { type: "invalid_request_error", code: "too_fast", message: "Audio arrived too fast.", param: null } });
    await page.getByRole("alert").getByText("Audio arrived too fast.").waitFor();
    // The meter and the clock go on beside the captions.
    await page.getByRole("meter", { name: "Microphone level" }).waitFor();
    const timer = page.getByRole("timer", { name: "Time recorded" });
    await until("3 s recorded", async () => (await timer.textContent()) === "0:03", 20_000, 50);

    await page.getByRole("button", { name: "Stop and transcribe" }).click();
    await page
      .getByRole("status")
      .getByText(/Finishing the transcription/)
      .waitFor();
    await page.waitForURL(/\/tasks\/987654$/, { timeout: 30_000 });
    const types = standIn.types();
    expect(types.slice(-2)).toEqual(["input_audio_buffer.commit", "session.close"]);
    // Real-time 16 kHz audio, the speech heard: about 16,000 samples a second between the first append and the last.
    const seconds = (standIn.lastAppend - standIn.firstAppend) / 1000;
    expect(seconds).toBeGreaterThan(2);
    expect(standIn.samples / 16_000).toBeGreaterThan(seconds * 0.8);
    expect(standIn.samples / 16_000).toBeLessThan(seconds * 1.2 + 1.5);
    expect(standIn.loudest).toBeGreaterThan(3000);
    expect(requests.filter((request) => request.startsWith("POST /api/uploads/"))).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  test("a session refused: said quietly, no captions, and the recording uploaded as before", async () => {
    const standIn = new StandIn((server, event) => {
      if (event.type !== "session.update") return;
      server.send({ type: "error", event_id: "e", error: { type: "invalid_request_error", code: "session_limit", message: "Two live sessions already run." } });
      server.socket?.close({ code: 1008 });
    });
    const { page, requests, errors } = await visit(standIn);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await page.getByText("Live captions are not available (Two live sessions already run.)").waitFor();
    expect(await page.getByRole("log", { name: "Live captions" }).count()).toBe(0);
    expect(await page.getByRole("region", { name: "Or record from the microphone" }).getByRole("alert").textContent()).toBe("");
    const timer = page.getByRole("timer", { name: "Time recorded" });
    await until("2 s recorded", async () => (await timer.textContent()) === "0:02", 20_000, 50);
    await page.getByRole("button", { name: "Stop and transcribe" }).click();
    await page.waitForURL(/\/tasks\/\d+$/, { timeout: 60_000 });
    expect(requests).toContain("POST /api/uploads/complete");
    expect(standIn.types().filter((type) => type === "session.close")).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  /** A stand-in that opens the session, then leaves the rest to the test. */
  const opening = () =>
    new StandIn((server, event) => {
      if (event.type === "session.update") server.send({ type: "session.updated", event_id: "e", session: event.session });
    });
  const uploadsOf = (requests: string[]) => requests.filter((request) => request.startsWith("POST /api/uploads"));

  test("the service stops mid-recording: the recording stops there, nothing is uploaded, and the task it became opens", async () => {
    const standIn = opening();
    const { page, requests, errors } = await visit(standIn);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await until("audio streamed", async () => standIn.samples > 16_000 || null, 15_000, 50);
    standIn.send(completed("item_1", "He could wait no longer."));
    await page.getByRole("log", { name: "Live captions" }).getByText("He could wait no longer.").waitFor();
    // What the service's stop sends (open-sessions.ts): why, the task the audio so far became, then 1001.
    const shutdown = "The service is shutting down: this session ended, and what it recorded is kept as a task. Connect again in a moment.";
    standIn.send({ type: "error", event_id: "e", error: { type: "server_error", code: "server_shutdown", message: shutdown } });
    standIn.send({ type: "session.closed", event_id: "e", task_id: 987_655 });
    await standIn.socket?.close({ code: 1001 });

    await page
      .getByRole("status")
      .getByText(/^The live transcription ended, so the recording stopped after \d+ seconds?\. What was said until then/)
      .waitFor();
    await page.getByRole("alert").getByText(shutdown).waitFor();
    expect(await page.getByRole("timer", { name: "Time recorded" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Stop and transcribe" }).count()).toBe(0);
    await page.getByRole("log", { name: "Live captions" }).getByText("He could wait no longer.").waitFor();
    // The page closes its side and asks nothing more of the session (no commit, no session.close).
    expect(standIn.types().filter((type) => type !== "session.update")).toEqual([]);
    await Bun.sleep(500);
    expect(uploadsOf(requests)).toEqual([]);
    await page.getByRole("button", { name: "Open the transcription" }).click();
    await page.waitForURL(/\/tasks\/987655$/);
    expect(uploadsOf(requests)).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  test("a session that says it kept nothing: the captions stop, the recording goes on, and Stop uploads all of it", async () => {
    const standIn = opening();
    const { page, requests, errors } = await visit(standIn);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await until("audio streamed", async () => standIn.samples > 8000 || null, 15_000, 50);
    standIn.send({
      type: "error",
      event_id: "e",
      error: { type: "server_error", code: "task_not_kept", message: "The session's recording could not be kept as a task." },
    });
    standIn.send({ type: "session.closed", event_id: "e", task_id: null });
    await standIn.socket?.close({ code: 1000 });
    await page.getByText("The live captions stopped: the recording goes on, and is transcribed when you stop it.").waitFor();
    const timer = page.getByRole("timer", { name: "Time recorded" });
    await until("1 s recorded", async () => (await timer.textContent()) === "0:01", 20_000, 50);
    await page.getByRole("button", { name: "Stop and transcribe" }).click();
    await page.waitForURL(/\/tasks\/\d+$/, { timeout: 60_000 });
    expect(requests).toContain("POST /api/uploads/complete");
    expect(errors).toEqual([]);
  }, 60_000);

  test("a session cut off without a word: the recording goes on, and on Stop stays in the page, uploaded only when asked", async () => {
    const standIn = opening();
    const { page, requests, errors } = await visit(standIn);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await until("audio streamed", async () => standIn.samples > 8000 || null, 15_000, 50);
    standIn.send(completed("item_1", "He could wait no longer."));
    await page.getByRole("log", { name: "Live captions" }).getByText("He could wait no longer.").waitFor();
    standIn.send({ type: "error", event_id: "e", error: { type: "server_error", code: "server_shutdown", message: "The server is restarting." } });
    await standIn.socket?.close({ code: 1012 });
    await page.getByText(/^The live captions were cut off: the recording goes on\./).waitFor();
    await page.getByRole("alert").getByText("The server is restarting.").waitFor();
    const timer = page.getByRole("timer", { name: "Time recorded" });
    await until("1 s recorded", async () => (await timer.textContent()) === "0:01", 20_000, 50);
    await page.getByRole("button", { name: "Stop and transcribe" }).click();
    await page
      .getByRole("status")
      .getByText(/^The live transcription was cut off: .* upload it, or discard it\.$/)
      .waitFor();
    expect(uploadsOf(requests)).toEqual([]);
    await page.getByRole("button", { name: "Upload the recording", exact: true }).click();
    await page.waitForURL(/\/tasks\/\d+$/, { timeout: 60_000 });
    expect(requests).toContain("POST /api/uploads/complete");
    expect(errors).toEqual([]);
  }, 60_000);

  test("no answer to Stop within 30 s: nothing uploaded, the recording kept in the page to upload or discard", async () => {
    // The stand-in never answers session.close, as a server busy with a long final pass or a backlog.
    const standIn = opening();
    const { page, requests, errors } = await visit(standIn, true);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await until("audio streamed", async () => standIn.samples > 16_000 || null, 15_000, 50);
    await page.getByRole("button", { name: "Stop and transcribe" }).click();
    await until("session.close sent", async () => standIn.types().includes("session.close") || null, 10_000, 50);
    await page
      .getByRole("status")
      .getByText(/Finishing the transcription/)
      .waitFor();
    await page.clock.fastForward("00:31");
    await page
      .getByRole("status")
      .getByText(/^The live transcription did not answer within 30 seconds: .* upload it, or discard it\.$/)
      .waitFor();
    await page.getByRole("button", { name: "Upload the recording", exact: true }).waitFor();
    expect(uploadsOf(requests)).toEqual([]);
    await page.getByRole("button", { name: "Discard the recording" }).click();
    await page.getByRole("button", { name: "Record", exact: true }).waitFor();
    expect(uploadsOf(requests)).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);
});
