import type { BlobStore } from "../blobs/port.ts";
import type { ChunkResult } from "./stitching.ts";

export type RecognizedChunk = ChunkResult & { punctuated: boolean };
type Chunk = { start: number; end: number };

/** Where an attempt's working files live: its chunk results, their plan and its progress (progress.ts). */
export const attemptFolder = (taskId: number, attempt: number) => `work/recognition/${taskId}-${attempt}/`;

/** Where the pipeline says how far an attempt has come, for the status stream (progress.ts). */
export const progressKey = (taskId: number, attempt: number) => `${attemptFolder(taskId, attempt)}progress.json`;

/** The keys of the chunk results an attempt may have kept, written before the first of them (see ChunkResults.plan). */
const planKey = (taskId: number, attempt: number) => `${attemptFolder(taskId, attempt)}plan.json`;

async function plannedKeys(blobs: BlobStore, taskId: number, attempt: number): Promise<string[]> {
  const read = await blobs.get(planKey(taskId, attempt));
  if (!read) return [];
  try {
    const keys = JSON.parse(await new Response(read.body).text()) as unknown;
    return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === "string" && key.startsWith(attemptFolder(taskId, attempt))) : [];
  } catch {
    return []; // unreadable (a put is whole or absent, so damaged): nothing to go by
  }
}

/** Deletes every chunk result an attempt kept, whichever engine's, and its progress, and its plan last. */
export async function clearChunkResults(blobs: BlobStore, taskId: number, attempt: number): Promise<void> {
  await Promise.all([...(await plannedKeys(blobs, taskId, attempt)), progressKey(taskId, attempt)].map((key) => blobs.delete(key)));
  await blobs.delete(planKey(taskId, attempt));
}

/**
 * What each chunk of an attempt was recognised as, kept in the blob store as it is done, so that an
 * attempt delivered again (its worker died or was stopped) recognises only the chunks still missing.
 * Chunks are planned from the decoded audio alone, so a redelivery plans the same ones. Keyed by the
 * engine too: another engine's words are not reused. Removed once the attempt ends, or with its task.
 */
export class ChunkResults {
  constructor(
    private readonly blobs: BlobStore,
    private readonly engine: string,
  ) {}

  private key(taskId: number, attempt: number, chunk: Chunk): string {
    return `${attemptFolder(taskId, attempt)}${this.engine.replace(/[^A-Za-z0-9._-]/g, "_")}-${chunk.start}-${chunk.end}.json`;
  }

  /**
   * Names the results this attempt may keep before it keeps any: the words are personal data, and deleting the
   * task must find them, those of an attempt whose worker died too, without listing the store (which the blob
   * store's port cannot do). Those of an earlier delivery (another engine's) stay named.
   */
  async plan(taskId: number, attempt: number, chunks: readonly Chunk[]): Promise<void> {
    const keys = new Set([...(await plannedKeys(this.blobs, taskId, attempt)), ...chunks.map((chunk) => this.key(taskId, attempt, chunk))]);
    await this.blobs.put(planKey(taskId, attempt), Buffer.from(JSON.stringify([...keys])), { contentType: "application/json" });
  }

  async load(taskId: number, attempt: number, chunk: Chunk): Promise<RecognizedChunk | null> {
    const read = await this.blobs.get(this.key(taskId, attempt, chunk));
    if (!read) return null;
    try {
      const kept = JSON.parse(await new Response(read.body).text()) as RecognizedChunk;
      return kept.start === chunk.start && kept.end === chunk.end && Array.isArray(kept.words) ? kept : null;
    } catch {
      return null; // a write cut short: recognise it again
    }
  }

  async save(taskId: number, attempt: number, result: RecognizedChunk): Promise<void> {
    await this.blobs.put(this.key(taskId, attempt, result), Buffer.from(JSON.stringify(result)), { contentType: "application/json" });
  }

  async clear(taskId: number, attempt: number, chunks: readonly Chunk[]): Promise<void> {
    await Promise.all(chunks.map((chunk) => this.blobs.delete(this.key(taskId, attempt, chunk))));
    await clearChunkResults(this.blobs, taskId, attempt);
  }
}
