import { renderHere, type RenderJob, type RenderResult } from "./render.ts";

/** The rendering thread (see `renderHeavy`): one job at a time, the bytes handed back without a copy. */
declare const self: Worker;

self.onmessage = async (event: MessageEvent<RenderJob>) => {
  const { id, format, document } = event.data;
  try {
    const made = await renderHere(format, document);
    // Transfer only a buffer the bytes own whole (a pooled Buffer's would take its neighbours along).
    const bytes = made.byteOffset === 0 && made.byteLength === made.buffer.byteLength ? made : made.slice();
    self.postMessage({ id, bytes } satisfies RenderResult, [bytes.buffer as ArrayBuffer]);
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies RenderResult);
  }
};
