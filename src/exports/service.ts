import type { DocumentStore } from "../readmodels/port.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { EventMetadata } from "../core/event.ts";
import { ConflictError } from "../core/errors.ts";
import type { Tasks } from "../tasks/service.ts";
import { exportDocumentId, exportsProjection, type ExportDocument } from "./exports-projection.ts";
import type { WaitForProjections } from "../core/projection.ts";
import { contentTypes, isHeavy, lightChunks, type ExportFormat, type HeavyFormat, type LightFormat } from "./formats/index.ts";
import { timedSegments } from "./document.ts";
import type { CueLimits } from "./formats/cue-limits.ts";
import type { SubtitleOptions } from "./formats/subtitle-cues.ts";
import { exportFileName } from "./file-name.ts";

/** What a download answers: the file, a signed URL to it, or "being made, retry". */
export type Download =
  | { kind: "file"; fileName: string; contentType: string; body: Iterable<string> | ReadableStream<Uint8Array>; size: number | null }
  | { kind: "ready"; url: string; expiresInSeconds: number }
  | { kind: "processing"; message: string; retryAfterSeconds: number };

/** How long a signed download URL of a heavy export stays valid. */
export const downloadUrlSeconds = 15 * 60;
/** A download asks again for an export still missing this long after the last request (a lost job). */
const requestAgainAfterMs = 30_000;

/**
 * `GET /api/tasks/{id}/download/{format}`. Light formats are made on request from the `transcripts`
 * read model. Heavy ones are made by the export worker; the `exports` read model says which version
 * exists, and only one of the task's current `export.version` (or newer) is ever served. Otherwise the
 * answer is "processing", and a request (ExportRequested) makes sure the worker makes it, even for a
 * task that finished before the worker existed.
 */
export class Exports {
  constructor(
    private readonly db: DocumentStore,
    private readonly blobs: BlobStore,
    private readonly tasks: Tasks,
    private readonly now: () => Date = () => new Date(),
    private readonly waitFor: WaitForProjections = async () => {},
  ) {}

  /**
   * `origin`: where the caller reached the API, which the embedded store's signed URL names (src/http/request-origin.ts).
   * `limits`: how srt and vtt cues are shaped (the defaults when absent).
   */
  async download(
    userId: number,
    taskId: number,
    format: ExportFormat,
    wantsJson: boolean,
    metadata: EventMetadata,
    origin?: string,
    limits?: CueLimits,
  ): Promise<Download> {
    const task = await this.tasks.owned(userId, taskId);
    const transcript = await this.tasks.transcript(taskId);
    if (!transcript?.segments || transcript.segments.length === 0) {
      throw new ConflictError(`The task has no transcript yet (it is ${task.status}): exports can be downloaded once it is transcribed.`);
    }
    const fileName = exportFileName(task.name, format);
    if (!isHeavy(format)) return this.light(format, transcript.segments, fileName, { limits, mediaEndMs: task.duration * 1000 });

    const made = await this.db.collection<ExportDocument>("exports").findOne({ _id: exportDocumentId(taskId, format) });
    if (made?.version && made.key && BigInt(made.version) >= BigInt(task.exportVersion)) {
      if (wantsJson) {
        const signed = await this.blobs.signGet(made.key, { expiresInSeconds: downloadUrlSeconds, downloadName: fileName, origin });
        return { kind: "ready", url: signed.url, expiresInSeconds: downloadUrlSeconds };
      }
      const file = await this.blobs.get(made.key);
      if (file) return { kind: "file", fileName, contentType: contentTypes[format], body: file.body, size: file.size };
      // The file is gone (deleted for a newer version the read model has not shown yet): make sure one is made.
    }
    await this.request(taskId, format, task.exportVersion, made, metadata);
    return { kind: "processing", message: `The ${format} is being generated; retry in a few seconds.`, retryAfterSeconds: 3 };
  }

  private light(format: LightFormat, segments: readonly unknown[], fileName: string, options: SubtitleOptions): Download {
    return { kind: "file", fileName, contentType: contentTypes[format], body: lightChunks(format, timedSegments(segments), options), size: null };
  }

  /** Appends ExportRequested unless this version was asked for moments ago (clients poll). */
  private async request(taskId: number, format: HeavyFormat, version: string, made: ExportDocument | null, metadata: EventMetadata): Promise<void> {
    const now = this.now();
    const recent = made?.requestedVersion === version && made.requestedAt !== null && now.getTime() - Date.parse(made.requestedAt) < requestAgainAfterMs;
    if (recent) return;
    const { position } = await this.tasks.commands.run(taskId, { type: "RequestExport", format, version, now: now.toISOString() }, { metadata });
    // The next poll reads this request from the exports read model: answered once it shows there, it is not asked again.
    if (position !== null) await this.waitFor(position, [exportsProjection.name]);
  }
}
