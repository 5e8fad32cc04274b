import type { BlobStore } from "../blobs/port.ts";
import type { ChunkResult } from "./stitching.ts";

export type RecognizedChunk = ChunkResult & { punctuated: boolean };
type Chunk = { start: number; end: number };

/**
 * What each chunk of an attempt was recognised as, kept in the blob store as it is done, so that an
 * attempt delivered again (its worker died or was stopped) recognises only the chunks still missing.
 * Chunks are planned from the decoded audio alone, so a redelivery plans the same ones. Keyed by the
 * engine too: another engine's words are not reused. Removed once the attempt ends.
 */
export class ChunkResults {
  constructor(
    private readonly blobs: BlobStore,
    private readonly engine: string,
  ) {}

  private key(taskId: number, attempt: number, chunk: Chunk): string {
    return `work/recognition/${taskId}-${attempt}/${this.engine.replace(/[^A-Za-z0-9._-]/g, "_")}-${chunk.start}-${chunk.end}.json`;
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
  }
}
