/**
 * What must hold after every fault, read from an embedded DATA_DIR's files (the log and the live read models) by a
 * process that took no part in the fault: every task finished exactly once, charged its cost once, no slot held by a
 * finished task, and every read model equal to a fresh replay of the log. The replay is a projection runner of its
 * own, started on an empty store when the observer opens and kept folding the log as it grows, so each case compares
 * against a replay without folding the whole log again.
 */
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventStore } from "../../src/core/event-store.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import type { BlobStore } from "../../src/blobs/port.ts";
import type { RecordedEvent } from "../../src/core/event.ts";
import { fold } from "../../src/core/decider.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { allProjections } from "../../projections/index.ts";
import { Checkpoints, checkpointId } from "../../projections/checkpoints.ts";
import { TranscriptStore, hasTranscript, type TranscriptSource } from "../../src/tasks/transcripts.ts";
import { admissionDecider } from "../../src/tasks/admission.ts";
import { until } from "../support/eventually.ts";
import { storedEventsOf } from "../support/stored-events.ts";

/** Every collection a projection owns: what a replay must rebuild identically. */
export const projectedCollections = [...new Set(allProjections.flatMap((p) => p.collections))].sort();
const checkpointIds = allProjections.map((p) => checkpointId(p.name));

type Comparison = { equal: boolean; collection?: string; live?: unknown[]; replay?: unknown[] };

type TaskFacts = { position: number; supplied: boolean; finished: number; failed: number; deleted: boolean; cost: number | null };

/** What the log says after a case, the figures' part of it. */
export type Settled = {
  /** Tasks created since the case began. */
  tasks: number;
  /** Tasks (any) that never finished: failed, or still unfinished when the wait gave up. */
  tasksLost: number;
  /** Tasks with more than one TaskFinished. */
  duplicated: number;
  /** Tasks whose charges do not add up to their cost exactly once. */
  chargesWrong: number;
  /** Slots still held by tasks that finished. */
  slotsHeldByFinished: number;
  /** Seconds from the call until all of the above settled and the read models equalled the replay. */
  settledSeconds: number;
  /** When (seconds into settling) the tasks had ended and the slots were given back. */
  phases: { tasksEnded: number; slotsFree: number };
};

export class Observer {
  private readonly log: RecordedEvent[] = [];
  private readonly tasks = new Map<number, TaskFacts>();
  private readonly charges = new Map<number, number[]>();
  private readonly userStreams = new Set<string>();
  private readonly checkpoints: Checkpoints;
  /** What the last settle found comparing the live read models with the replay's, for expectSound. */
  private lastComparison: Comparison = { equal: true };
  private comparisons = 0;

  private constructor(
    private readonly store: EventStore,
    private readonly live: EmbeddedDocumentStore,
    private readonly fresh: EmbeddedDocumentStore,
    private readonly reference: ProjectionRunner,
    private readonly referenceDir: string,
    private readonly tasksAfter: number,
  ) {
    this.checkpoints = new Checkpoints(live);
  }

  /**
   * `blobs`: where the service keeps transcripts (the search read model reads them). `referenceFile`: a read-model
   * file made by a fresh replay up to some position, to go on from (a large log folded once beforehand).
   * `tasksAfter`: tasks created at or before this position (seeded, never meant to run) are not the cases' tasks.
   */
  static async open(dataDir: string, blobs: BlobStore, options: { referenceFile?: string; tasksAfter?: number } = {}): Promise<Observer> {
    const { referenceFile, tasksAfter = 0 } = options;
    const referenceDir = mkdtempSync(join(tmpdir(), "scribe-faults-replay-"));
    const freshFile = join(referenceDir, "readmodels.sqlite");
    if (referenceFile) await Bun.write(freshFile, Bun.file(referenceFile));
    const store = storedEventsOf(dataDir);
    const fresh = new EmbeddedDocumentStore(freshFile);
    const reference = new ProjectionRunner(store, fresh, allProjections, () => true, { transcripts: new TranscriptStore(blobs) });
    await reference.start();
    return new Observer(store, new EmbeddedDocumentStore(join(dataDir, "readmodels.sqlite")), fresh, reference, referenceDir, tasksAfter);
  }

  async close(): Promise<void> {
    await this.reference.stop();
    await this.store.close();
    await this.live.close();
    await this.fresh.close();
    rmSync(this.referenceDir, { recursive: true, force: true });
  }

  /** Reads what was appended since the last call, and returns the log's last readable position. */
  async head(): Promise<number> {
    const news = await this.store.readAll({ after: this.log.at(-1)?.position ?? 0 });
    for (const event of news) this.note(event);
    this.log.push(...news);
    return this.log.at(-1)?.position ?? 0;
  }

  private note(event: RecordedEvent): void {
    const data = event.data as { taskId?: number; cost?: number | null; seconds?: number };
    if (event.streamName.startsWith("user-")) this.userStreams.add(event.streamName);
    if (event.type === "SecondsCharged" && data.taskId !== undefined)
      this.charges.set(data.taskId, [...(this.charges.get(data.taskId) ?? []), data.seconds ?? 0]);
    if (!event.streamName.startsWith("task-") || event.position <= this.tasksAfter) return;
    const id = Number(event.streamName.slice("task-".length));
    if (event.type === "TaskCreated") {
      const facts = { position: event.position, supplied: hasTranscript(event.data as TranscriptSource), finished: 0, failed: 0 };
      this.tasks.set(id, { ...facts, deleted: false, cost: null });
      return;
    }
    const task = this.tasks.get(id);
    if (!task) return;
    if (event.type === "TaskFinished") {
      task.finished++;
      task.cost = data.cost ?? null;
    } else if (event.type === "TaskFailed") task.failed++;
    else if (event.type === "TaskDeleted") task.deleted = true;
  }

  /** Tasks whose recognition has started and not ended: work in flight. */
  inFlight(): number {
    const started = new Set(this.log.filter((e) => e.type === "TranscriptionStarted").map((e) => Number(e.streamName.slice("task-".length))));
    return [...started].filter((id) => {
      const task = this.tasks.get(id);
      return task && task.finished === 0 && task.failed === 0 && !task.deleted;
    }).length;
  }

  /** Waits (at most `timeoutMs`) until some recognition is in flight; returns how many are. */
  async workInFlight(timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.head();
      const now = this.inFlight();
      if (now > 0 || Date.now() > deadline) return now;
      await Bun.sleep(50);
    }
  }

  /** Whether every projection's saved checkpoint (and the relay's, with `relay`) has reached `position`. */
  async caughtUp(position: number, relay = false): Promise<boolean> {
    const ids = relay ? [...checkpointIds, "relay"] : checkpointIds;
    const entries = await this.checkpoints.entries(ids);
    return [...entries.values()].every((entry) => entry.position >= position);
  }

  /** Seconds until the read models are current: every checkpoint at `position` (the log's end when the fault ended). */
  async readModelsCurrent(position: number, timeoutMs = 60_000): Promise<number> {
    const started = Date.now();
    await until(`the read models to reach position ${position}`, () => this.caughtUp(position), timeoutMs, 25);
    return (Date.now() - started) / 1000;
  }

  /** Tasks that have not ended yet: neither finished, failed nor deleted. */
  private running(): number {
    return [...this.tasks.values()].filter((t) => !t.deleted && t.finished === 0 && t.failed === 0).length;
  }

  /** Tasks that never finished: failed, or still running. */
  private lost(): number {
    return [...this.tasks.values()].filter((t) => !t.deleted && t.finished === 0).length;
  }

  /** Finished tasks still holding a slot on their account's stream. */
  private slotsHeldByFinished(): number {
    let held = 0;
    for (const stream of this.userStreams) {
      const state = fold(admissionDecider, this.log.filter((e) => e.streamName === stream) as never);
      for (const slot of state.inFlight.values()) {
        const task = this.tasks.get(slot.taskId);
        if (task && (task.finished > 0 || task.failed > 0 || task.deleted)) held++;
      }
    }
    return held;
  }

  /** Recognised tasks are charged their cost once; supplied transcripts are not charged. */
  private chargesWrong(): number {
    let wrong = 0;
    for (const [id, task] of this.tasks) {
      const expected = task.finished > 0 && !task.supplied && (task.cost ?? 0) > 0 ? [task.cost] : [];
      if (!Bun.deepEquals(this.charges.get(id) ?? [], expected)) wrong++;
    }
    return wrong;
  }

  /** Whether the live read models equal the replay's, collection by collection, at the log's end. */
  private async equalToReplay(): Promise<Comparison> {
    for (const collection of projectedCollections) {
      const rows = (db: EmbeddedDocumentStore) => db.collection(collection).find({}, { sort: { _id: 1 } });
      const [live, replay] = await Promise.all([rows(this.live), rows(this.fresh)]);
      if (!Bun.deepEquals(live, replay)) return { equal: false, collection, live, replay };
    }
    return { equal: true };
  }

  /**
   * Waits for the system to settle once the load has stopped: every task created ended, slots given back, the relay and
   * the projections at the log's end, the replay too; then compares. `since`: the log's end when the case began.
   * Returns the figures; the caller asserts on them after printing them.
   */
  async settle(since: number, timeoutMs = 60_000, ids: number[] = []): Promise<Settled> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    const remaining = () => Math.max(1_000, deadline - Date.now());
    const elapsed = () => Math.round((Date.now() - started) / 10) / 100;
    await until("every task to end", async () => (await this.head(), this.running() === 0), remaining(), 100).catch(() => undefined);
    const tasksEnded = elapsed();
    await until("finished tasks' slots to be given back", async () => (await this.head(), this.slotsHeldByFinished() === 0), remaining(), 100).catch(
      () => undefined,
    );
    const slotsFree = elapsed();
    // The load's tasks are all in the log (none lost between the answer and the store).
    const missing = ids.filter((id) => !this.tasks.has(id)).length;
    let last: Comparison = { equal: false };
    for (;;) {
      const position = await this.head();
      const current =
        (await this.caughtUp(position, true)) &&
        (await this.reference.waitFor(position, null, remaining()).then(
          () => true,
          () => false,
        ));
      if (current) {
        last = await this.equalToReplay();
        this.comparisons++;
        if (last.equal && (await this.head()) === position) break;
      }
      if (Date.now() > deadline) break;
      await Bun.sleep(current ? 200 : 50);
    }
    const settledSeconds = (Date.now() - started) / 1000;
    if (process.env.FAULTS_DEBUG) {
      const tail = this.log.slice(-6).map((e) => `${e.type}@${Math.round((Date.parse(e.time) - started) / 10) / 100}`);
      console.log(`FAULT-TAIL ${JSON.stringify({ tail, comparisons: this.comparisons })}`);
    }
    const tasks = [...this.tasks.values()];
    const result: Settled = {
      tasks: tasks.filter((t) => t.position > since).length,
      tasksLost: this.lost() + missing,
      duplicated: tasks.filter((t) => t.finished > 1).length,
      chargesWrong: this.chargesWrong(),
      slotsHeldByFinished: this.slotsHeldByFinished(),
      settledSeconds,
      phases: { tasksEnded, slotsFree },
    };
    this.lastComparison = last;
    return result;
  }

  /** Asserts what settle measured: nothing lost, nothing twice, charges and slots right, read models equal to the replay. */
  expectSound(settled: Settled): void {
    expect({
      tasksLost: settled.tasksLost,
      duplicated: settled.duplicated,
      chargesWrong: settled.chargesWrong,
      slotsHeldByFinished: settled.slotsHeldByFinished,
    }).toEqual({
      tasksLost: 0,
      duplicated: 0,
      chargesWrong: 0,
      slotsHeldByFinished: 0,
    });
    const { equal, collection, live, replay } = this.lastComparison;
    if (!equal) expect({ collection, rows: live }).toEqual({ collection, rows: replay });
  }

  /** Whether a task was created after log position `position`. */
  createdAfter(position: number): boolean {
    return [...this.tasks.values()].some((t) => t.position > position);
  }
}

/** One line per case, collected from the test output: `FAULT-FIGURES {...}`. */
export function printFigures(figures: Record<string, unknown>): void {
  console.log(`FAULT-FIGURES ${JSON.stringify(figures)}`);
}
