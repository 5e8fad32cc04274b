import type { ExportDocument } from "./document.ts";
import type { HeavyFormat } from "./formats/index.ts";
import { renderPdf } from "./pdf.ts";
import { renderDocx } from "./docx.ts";

/** Makes a heavy export's bytes here, on this thread. */
export function renderHere(format: HeavyFormat, document: ExportDocument): Promise<Uint8Array> {
  return format === "pdf" ? renderPdf(document) : renderDocx(document);
}

export type RenderJob = { id: number; format: HeavyFormat; document: ExportDocument };
export type RenderResult = { id: number; bytes: Uint8Array } | { id: number; error: string };

type Waiting = { resolve(bytes: Uint8Array): void; reject(error: Error): void };

let thread: Worker | null = null;
let lastId = 0;
const waiting = new Map<number, Waiting>();

/**
 * Makes a heavy export's bytes on a thread of its own. A 3-hour PDF is about a second of CPU, and
 * the export worker shares its process with the API in the embedded profile: rendered here, every
 * request would wait that second. The thread starts on first use, holds the process open only while
 * it has work, and is started again if it dies. `EXPORT_RENDER_THREAD=0` renders on the caller's thread.
 */
export function renderHeavy(format: HeavyFormat, document: ExportDocument): Promise<Uint8Array> {
  if (process.env.EXPORT_RENDER_THREAD === "0") return renderHere(format, document);
  const worker = (thread ??= startThread());
  const id = ++lastId;
  return new Promise<Uint8Array>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.ref();
    worker.postMessage({ id, format, document } satisfies RenderJob);
  });
}

function startThread(): Worker {
  const worker = new Worker(new URL("./render-thread.ts", import.meta.url).href);
  worker.unref();
  worker.onmessage = (event: MessageEvent<RenderResult>) => {
    const result = event.data;
    const job = waiting.get(result.id);
    waiting.delete(result.id);
    if (waiting.size === 0) worker.unref();
    if (!job) return;
    if ("error" in result) job.reject(new Error(`export rendering failed: ${result.error}`));
    else job.resolve(result.bytes);
  };
  worker.onerror = (event) => {
    // The thread is gone: fail what it held (the bus redelivers those events) and start anew next time.
    thread = null;
    const error = new Error(`export rendering thread failed: ${event.message}`);
    for (const job of waiting.values()) job.reject(error);
    waiting.clear();
  };
  return worker;
}
