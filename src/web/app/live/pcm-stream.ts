/**
 * The microphone's stream as 16 kHz PCM16 blocks, from the AudioWorklet (pcm-worklet.ts) on the audio thread.
 * Browser-only: loaded with the live transcription, on the first press of Record.
 */
import { pcmProcessorName } from "./pcm.ts";

/** The worklet module's URL under /assets/, content-hashed: src/web/build.ts defines it when it bundles the app. */
declare const SCRIBE_PCM_WORKLET: string | undefined;

export type PcmStream = {
  /** Resolves once the worklet has posted everything it holds (the recording's last fraction of a second). */
  flush(): Promise<void>;
  /** Lets the audio graph go. */
  close(): void;
};

/** Whether this browser has what the live transcription needs (an AudioWorklet, a WebSocket) and the app knows its worklet. */
export const pcmStreamSupported = (): boolean =>
  typeof SCRIBE_PCM_WORKLET === "string" && typeof AudioWorkletNode === "function" && typeof WebSocket === "function";

/** A flush the worklet never answers (its context closed) must not hold the end of a recording. */
const flushTimeoutMs = 1000;

/** Starts converting `stream`: `onSamples` receives each block (100 ms) of 16 kHz PCM16 as the worklet posts it. */
export async function openPcmStream(stream: MediaStream, onSamples: (samples: Int16Array) => void): Promise<PcmStream> {
  if (typeof SCRIBE_PCM_WORKLET !== "string") throw new Error("the app was built without its PCM worklet");
  const context = new AudioContext();
  try {
    await context.audioWorklet.addModule(SCRIBE_PCM_WORKLET);
    const source = context.createMediaStreamSource(stream);
    // No output: a node with none is processed as long as its input is connected, and nothing reaches the speakers.
    const node = new AudioWorkletNode(context, pcmProcessorName, { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: "explicit" });
    let flushed: (() => void) | null = null;
    node.port.onmessage = (event: MessageEvent<unknown>) => {
      if (event.data instanceof Int16Array) onSamples(event.data);
      else flushed?.();
    };
    source.connect(node);
    // Created after awaits, it may start suspended (autoplay rules); the press that started it lets it resume. Not
    // awaited: where the browser holds it until another gesture, the audio held meanwhile is simply none.
    context.resume().catch(() => undefined);
    return {
      flush: () =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, flushTimeoutMs);
          flushed = () => {
            clearTimeout(timer);
            resolve();
          };
          node.port.postMessage("flush");
        }),
      close() {
        source.disconnect();
        node.port.onmessage = null;
        context.close().catch(() => undefined);
      },
    };
  } catch (error) {
    context.close().catch(() => undefined);
    throw error;
  }
}
