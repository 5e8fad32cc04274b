/**
 * The search read model: every segment of a task's current transcript, one document each, in a collection
 * with a text index scoped by owner (`search_segments`), and per task its owner and name (`search_tasks`),
 * which results show and a rename changes in one write.
 *
 * - a transcript arrives (TaskCreated with supplied segments, TaskFinished) or is edited (TranscriptEdited):
 *   the task's segments become the new transcript's, only those that differ written again;
 * - a retry (TaskRetried) takes the old transcript out: the new one comes when the task finishes again;
 * - a deletion (TaskDeleted) takes the task and its segments out.
 *
 * Idempotent by position, as positionGuarded is: the task's document carries the position of the last event
 * folded, an event at or below it is skipped, and it is written last, by compare-and-set. A crash between
 * the segments and the task's document leaves the document behind, so the event arrives again and replaces
 * the segments again, with the same result.
 */
import { PacedBatches } from "../core/paced-batches.ts";
import type { Recorded } from "../core/event.ts";
import { compareAndSet, type Projection, type ProjectedDocument, type ProjectionContext } from "../core/projection.ts";
import { DuplicateKeyError, type DocumentStore } from "../readmodels/port.ts";
import { taskIdOf, type TaskEvent } from "../tasks/events.ts";
import { hasTranscript, TranscriptIntegrityError, type TranscriptSource } from "../tasks/transcripts.ts";
import type { Segment } from "../tasks/segments.ts";
import { logger } from "../logging/logger.ts";
import { indexedWords, wordPairs } from "./words.ts";

export const searchSegmentsCollection = "search_segments";
export const searchTasksCollection = "search_tasks";

/** `segments`: how many segments of the task are indexed (`<taskId>:0` to `<taskId>:<segments - 1>`). */
export type SearchTaskFields = { taskId: number; userId: number; name: string; segments: number };
export type SearchTaskDocument = ProjectedDocument & SearchTaskFields;

export type SearchSegmentFields = {
  userId: number;
  taskId: number;
  segmentId: number;
  start: number;
  end: number;
  speaker: string | null;
  text: string;
  /** The text as the index holds it (words.ts). */
  words: string;
  /** Each word joined to the next (`a_b b_c`, words.ts wordPairs): the index matches phrases on these. */
  pairs: string;
};
export type SearchSegmentDocument = ProjectedDocument & SearchSegmentFields;

const log = logger("search");

/** What an event does to the task's searchable segments. */
type SegmentsChange = { kind: "keep" } | { kind: "remove" } | { kind: "replace"; source: TranscriptSource };

const searchedEventTypes = ["TaskCreated", "TaskRenamed", "TranscriptEdited", "TaskFinished", "TaskRetried", "TaskDeleted"] as const;
type SearchedEvent = Extract<TaskEvent, { type: (typeof searchedEventTypes)[number] }>;

function evolve(current: SearchTaskFields | null, event: Recorded<SearchedEvent>): { task: SearchTaskFields | null; segments: SegmentsChange } {
  const keep: SegmentsChange = { kind: "keep" };
  if (event.type === "TaskCreated") {
    const { taskId, userId, name } = event.data;
    return { task: { taskId, userId, name, segments: 0 }, segments: hasTranscript(event.data) ? { kind: "replace", source: event.data } : keep };
  }
  if (current === null) return { task: null, segments: keep };
  switch (event.type) {
    case "TaskRenamed":
      return { task: { ...current, name: event.data.name }, segments: keep };
    case "TranscriptEdited":
      return { task: current, segments: hasTranscript(event.data) ? { kind: "replace", source: event.data } : keep };
    case "TaskFinished":
      return { task: current, segments: hasTranscript(event.data) ? { kind: "replace", source: event.data } : keep };
    case "TaskRetried":
      return { task: current, segments: { kind: "remove" } };
    case "TaskDeleted":
      return { task: null, segments: { kind: "remove" } };
    default:
      return { task: current, segments: keep };
  }
}

type IndexedSegment = Pick<Segment, "start" | "end" | "text"> & { id?: number; speaker?: string | null };

async function segmentsOf(source: TranscriptSource, context: ProjectionContext | undefined, taskId: number): Promise<readonly IndexedSegment[]> {
  if (!source.transcript) return (source.segments ?? []) as Segment[];
  const transcripts = context?.transcripts;
  if (!transcripts) throw new Error(`search read model: task ${taskId}'s transcript is a blob, and this projection runner was given no transcript store`);
  try {
    return await transcripts.load(source.transcript);
  } catch (error) {
    // Stalling here would stall every read-your-writes wait; the task's detail view reports the same damage.
    if (!(error instanceof TranscriptIntegrityError)) throw error;
    // Missing is what a replay meets for every task deleted since (its transcripts went with it): no alarm then.
    log[error.missing ? "info" : "error"](
      { taskId, key: source.transcript.key, err: error },
      "transcript missing or damaged: the task's segments are left out of search",
    );
    return [];
  }
}

/**
 * Segments are written and taken out at most this many at a time, each batch one transaction, with a turn of the
 * event loop between batches: a maximal transcript (100,000 segments) written in one go held the process
 * for 3 s (2 shared cores), answering no request, and built its ~72 MB of documents at once. Indexing it
 * 1,000 at a time still stalled 16 times over 50 ms (up to 186 ms); 250 at a time, twice, up to 63 ms, and
 * the whole took no longer (scratch measurement of one transcript created, edited and deleted). With FTS5's prefix
 * indexes a maximal transcript's segment (220 characters) costs about 90 µs to index idle, so 250 held the event loop
 * 40-60 ms a batch, 400 times over; 50 hold it about 5 ms idle, 8-24 ms on a busy machine: the batches written are
 * sized to hold it about `indexingBudgetMs` (PacedBatches), at least `leastSegmentBatch` segments.
 */
export const segmentBatch = 50;
const leastSegmentBatch = 5;
// 2 rather than 3: with four clients creating maximal transcripts, health p50 went from 3.8 to 2.3 ms, p99 from 14 to 12-13.
const indexingBudgetMs = 2;

/**
 * Taken out 50 at a time for a reason of its own: the text index wipes a deleted row's words from its file (FTS5's
 * secure-delete, so a deleted task's words are gone from disk, not just unlisted), which made a batch of 250 hold
 * the event loop about 90 ms; 50 hold it under 20.
 */
export const segmentDeleteBatch = 50;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Takes the task's segments out, a batch at a time. Looked up by task each time rather than by id, so
 * whatever a crash left (old segments, some new ones) goes too.
 */
async function removeSegments(db: DocumentStore, taskId: number): Promise<void> {
  const collection = db.collection<SearchSegmentDocument>(searchSegmentsCollection);
  for (;;) {
    const batch = await collection.find({ taskId }, { limit: segmentDeleteBatch });
    if (batch.length === 0) return;
    await collection.deleteMany({ _id: { $in: batch.map((segment) => segment._id) } });
    if (batch.length < segmentDeleteBatch) return;
    await nextTurn();
  }
}

/** A segment as the read model holds it but for its indexed words (made only for what is written). */
type SegmentFields = Omit<SearchSegmentFields, "words" | "pairs"> & { _id: string; _position: number };

const segmentFields = (task: SearchTaskFields, segment: IndexedSegment, index: number, position: number): SegmentFields => ({
  _id: `${task.taskId}:${index}`,
  _position: position,
  userId: task.userId,
  taskId: task.taskId,
  segmentId: segment.id ?? index + 1,
  start: segment.start,
  end: segment.end,
  speaker: segment.speaker ?? null,
  text: segment.text,
});

const withWords = (segment: SegmentFields): SearchSegmentDocument => {
  const words = indexedWords(segment.text);
  return { ...segment, words, pairs: wordPairs(words) };
};

/** Whether an indexed segment already says what `wanted` says (its position aside): then it is left as it is. */
const sameSegment = (indexed: SearchSegmentDocument | undefined, wanted: SegmentFields): boolean =>
  indexed !== undefined &&
  indexed.userId === wanted.userId &&
  indexed.segmentId === wanted.segmentId &&
  indexed.start === wanted.start &&
  indexed.end === wanted.end &&
  indexed.speaker === wanted.speaker &&
  indexed.text === wanted.text;

/**
 * Makes the task's indexed segments the transcript's, a batch at a time, writing only the segments that
 * differ from what is indexed under their place (`<taskId>:<index>`), then taking out those past its end
 * (`indexedBefore`: how many there were). Editing one segment of a maximal transcript (100,000 segments)
 * rewrote and re-indexed all of them, 4.9 s; now it reads them and writes one, 0.5 s. Places past
 * `indexedBefore` are written without reading first, unless a crash left some there. Between batches a
 * search sees part of the new transcript; the task's document, written after, still names the event before,
 * so a crash in between makes the event come again, which finds what was written and writes the rest.
 */
async function replaceSegments(
  db: DocumentStore,
  task: SearchTaskFields,
  segments: readonly IndexedSegment[],
  position: number,
  indexedBefore: number,
): Promise<void> {
  const collection = db.collection<SearchSegmentDocument>(searchSegmentsCollection);
  const batches = new PacedBatches({ first: segmentBatch, least: leastSegmentBatch, most: segmentBatch, budgetMs: indexingBudgetMs });
  for (let from = 0, size = batches.next; from < segments.length; from += size, size = batches.next) {
    if (from > 0) await nextTurn();
    const wanted: SegmentFields[] = [];
    for (let i = from; i < Math.min(from + size, segments.length); i++) wanted.push(segmentFields(task, segments[i]!, i, position));
    if (from >= indexedBefore) {
      try {
        const started = performance.now();
        // The embedded store writes before this returns (unless its WAL is being caught up: then the batch stays
        // within `most`); a server's write is only sent: either way, what is timed is what the batch held the event
        // loop for.
        const written = collection.insertMany(wanted.map(withWords));
        batches.took(performance.now() - started, wanted.length);
        await written;
        continue;
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
    }
    const indexed = new Map((await collection.find({ _id: { $in: wanted.map((segment) => segment._id) } })).map((segment) => [segment._id, segment]));
    const changed = wanted.filter((segment) => !sameSegment(indexed.get(segment._id), segment));
    if (changed.length === 0) continue;
    const replaced = changed.filter((segment) => indexed.has(segment._id)).map((segment) => segment._id);
    if (replaced.length > 0) await collection.deleteMany({ _id: { $in: replaced } });
    await collection.insertMany(changed.map(withWords));
  }
  for (let from = segments.length; from < indexedBefore; from += segmentBatch) {
    await nextTurn();
    const past = Array.from({ length: Math.min(segmentBatch, indexedBefore - from) }, (_, k) => `${task.taskId}:${from + k}`);
    await collection.deleteMany({ _id: { $in: past } });
  }
}

async function apply(event: Recorded<SearchedEvent>, db: DocumentStore, context?: ProjectionContext): Promise<void> {
  const taskId = taskIdOf(event);
  if (taskId === null) return;
  const id = String(taskId);
  const tasks = db.collection<SearchTaskDocument>(searchTasksCollection);
  for (let attempt = 1; ; attempt++) {
    if (attempt > 10) throw new Error(`${searchTasksCollection}/${id}: still changing under event ${event.position} after ${attempt - 1} attempts`);
    const current = await tasks.findOne({ _id: id });
    if (current && current._position >= event.position) return;
    const next = evolve(current, event);
    let indexed = current?.segments ?? 0;
    let expected = current?._position ?? null;
    if (next.segments.kind === "remove") {
      await removeSegments(db, taskId);
      indexed = 0;
    } else if (next.segments.kind === "replace" && next.task) {
      if (current === null) {
        // A new task is named before its segments are written: a search part-way through a large transcript shows
        // the segments written so far, where it counted them but could name none (total 1,242, no results). Dated
        // just before the event, so that a crash before the end makes the event come again.
        const named: SearchTaskDocument = { ...next.task, segments: 0, _id: id, _position: event.position - 1 };
        if (!(await compareAndSet(tasks, id, null, named))) continue;
        expected = named._position;
      }
      const segments = await segmentsOf(next.segments.source, context, taskId);
      await replaceSegments(db, next.task, segments, event.position, indexed);
      indexed = segments.length;
    }
    const document = next.task && { ...next.task, segments: indexed, _id: id, _position: event.position };
    if (await compareAndSet(tasks, id, expected, document)) return;
  }
}

export const searchProjection: Projection<SearchedEvent> = {
  name: "search",
  // 2: the text index's rows leave by FTS5's 'delete' command (embedded-text.ts), a table made anew.
  // 3: a second column of word pairs, which phrases are matched on (embedded-text.ts).
  // 4: the task's document counts its indexed segments, which a new transcript is compared with.
  // 5: integer scopes written in 16 hex digits and FTS5 prefix indexes for 1 to 4 letters (embedded-text.ts).
  version: 5,
  collections: [searchSegmentsCollection, searchTasksCollection],
  eventTypes: searchedEventTypes,
  // A transcript of a few thousand segments is indexed well within this; a maximal one (100,000) takes about 20 s.
  answerWaitMs: 2_000,
  async setup(db) {
    const segments = db.collection(searchSegmentsCollection);
    await segments.createIndex({ taskId: 1 });
    await segments.createTextIndex({ scope: "userId", field: "words", pairs: "pairs" });
  },
  apply,
};
