/** The transcription capability: the API's summary and status routes, the workers that recognise and summarise, and their jobs. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { Semaphore } from "../core/semaphore.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import type { TranscriptionConfig } from "./config.ts";
import { transcriptionSettings } from "./settings.ts";

type TranscriptionApiParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore; blobs: BlobStore };
  config: { transcription: TranscriptionConfig };
  waitForProjections: WaitForProjections;
  tasks: Tasks;
  authenticated: Authenticated;
};

type TranscriptionWorkParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore; blobs: BlobStore; transcripts: TranscriptStore };
  config: { transcription: TranscriptionConfig };
  /** Work that takes hundreds of megabytes (summarising a large transcript), shared with the API's large bodies. */
  heavyWork: Semaphore;
};

export const capability: Capability<TranscriptionApiParts, TranscriptionWorkParts, typeof transcriptionSettings> = {
  name: "transcription",
  settings: transcriptionSettings,
  projections: [],
  routes: async ({ adapters, config, waitForProjections, tasks, authenticated }) => {
    const [{ createSummarizer }, { Summaries }, { transcriptionRoutes }, { enginesRoute }] = await Promise.all([
      import("./summary/index.ts"),
      import("./summaries.ts"),
      import("./routes.ts"),
      import("./engines-route.ts"),
    ]);
    const summaries = new Summaries(tasks, createSummarizer(config.transcription), waitForProjections);
    return [
      transcriptionRoutes({ tasks, db: adapters.documents, blobs: adapters.blobs, summaries, authenticated }),
      enginesRoute({ offer: tasks.recognitionOffer, authenticated }),
    ];
  },
  workers: async (parts) => {
    const { eventStore, blobs, transcripts } = parts.adapters;
    const { config, heavyWork } = parts;
    const [{ transcriptionWorkers }, { suppliedTranscriptWorker }, { deletedTaskChunksWorker }, { summaryRefreshWorkers }] = await Promise.all([
      import("./workers.ts"),
      import("./supplied-transcripts-worker.ts"),
      import("./deleted-task-chunks-worker.ts"),
      import("./summary-refresh-parts.ts"),
    ]);
    const pipeline = transcriptionWorkers(eventStore, blobs, transcripts, config.transcription);
    return [
      suppliedTranscriptWorker(eventStore, transcripts, pipeline.summarizer, heavyWork),
      // Even where this process recognises nothing (TRANSCRIPTION_WORKER=off): a deletion must reach what another kept.
      deletedTaskChunksWorker(blobs),
      ...pipeline.workers,
      ...summaryRefreshWorkers(parts),
    ];
  },
  jobs: async (parts) => {
    const { adapters, config } = parts;
    const [{ startStuckTaskSweeper }, { sweepTemporaryMedia, transcriptionTempRoot }, { startPeriodicJob }, { logger }, { summaryRefreshJobs }] =
      await Promise.all([
        import("./stuck-tasks-job.ts"),
        import("./temp-sweep.ts"),
        import("../core/periodic-job.ts"),
        import("../logging/logger.ts"),
        import("./summary-refresh-parts.ts"),
      ]);
    const root = transcriptionTempRoot(config.transcription.tempDir);
    // Per host, not leased: each worker process clears what dead processes of its host left in the temp folder.
    const tempSweep = startPeriodicJob(
      "temporary media sweep",
      async () => {
        const removed = await sweepTemporaryMedia(root);
        if (removed.length > 0) logger("transcription").warn({ removed }, "temporary media sweep: removed what dead processes left");
      },
      { everyMs: 10 * 60_000, firstAfterMs: 1 },
    );
    const stuckTasks = startStuckTaskSweeper(adapters.eventStore, adapters.documents, config.transcription.scribingDeadlineSeconds);
    return [stuckTasks, tempSweep, ...summaryRefreshJobs(parts)];
  },
};
