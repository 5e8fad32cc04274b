import type { ExportDocument } from "./document.ts";
import type { HeavyFormat } from "./formats/index.ts";
import { renderPdf } from "./pdf.ts";
import { renderDocx } from "./docx.ts";
import { BackgroundThread } from "../core/background-thread.ts";
import { readSetting } from "../config/read-settings.ts";
import { exportSettings } from "./settings.ts";

/** Makes a heavy export's bytes here, on this thread. */
export function renderHere(format: HeavyFormat, document: ExportDocument): Promise<Uint8Array> {
  return format === "pdf" ? renderPdf(document) : renderDocx(document);
}

export type RenderJob = { format: HeavyFormat; document: ExportDocument };

const thread = new BackgroundThread<RenderJob, Uint8Array>(new URL("./render-thread.ts", import.meta.url), "export rendering");

/**
 * Makes a heavy export's bytes on a thread of its own. A 3-hour PDF is about a second of CPU, and
 * the export worker shares its process with the API in the embedded profile: rendered here, every
 * request would wait that second. `EXPORT_RENDER_THREAD=0` renders on the caller's thread.
 */
export function renderHeavy(format: HeavyFormat, document: ExportDocument): Promise<Uint8Array> {
  if (!readSetting(exportSettings, process.env, "EXPORT_RENDER_THREAD")) return renderHere(format, document);
  return thread.run({ format, document });
}
