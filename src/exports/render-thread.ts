import { renderHere, type RenderJob } from "./render.ts";
import { serveOnThread } from "../core/background-thread.ts";

/** The rendering thread (see `renderHeavy`): one job at a time, the bytes handed back without a copy. */
serveOnThread<RenderJob, Uint8Array>(
  ({ format, document }) => renderHere(format, document),
  // Transfer only a buffer the bytes own whole (a pooled Buffer's would take its neighbours along).
  (bytes) => (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : []),
);
