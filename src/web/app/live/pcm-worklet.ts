/**
 * The AudioWorklet that turns the microphone into 16 kHz PCM16 on the audio thread (pcm.ts's Downsampler), and
 * posts it to the page in blocks of 100 ms: a WebSocket frame per 128-sample render quantum would be hundreds a
 * second. Bundled on its own (src/web/build.ts), since a worklet is a module the browser fetches by URL, from this
 * origin as the Content-Security-Policy's `script-src 'self'` allows. "flush" from the page posts what is left
 * (the end of the recording) and then `{ flushed: true }`.
 */
import { Downsampler, liveSampleRate, pcmProcessorName } from "./pcm.ts";

// The AudioWorkletGlobalScope's names, which TypeScript's DOM library does not describe.
declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;

const blockSamples = liveSampleRate / 10;

class Pcm16Processor extends AudioWorkletProcessor {
  private readonly downsampler = new Downsampler(sampleRate);
  private pending: Int16Array[] = [];
  private pendingSamples = 0;

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent<unknown>) => {
      if (event.data !== "flush") return;
      this.post();
      this.port.postMessage({ flushed: true });
    };
  }

  process(inputs: Float32Array[][]): boolean {
    // The first channel: the microphone is mono for speech (a stereo one says the same thing twice).
    const channel = inputs[0]?.[0];
    if (channel && channel.length > 0) {
      const samples = this.downsampler.push(channel);
      this.pending.push(samples);
      this.pendingSamples += samples.length;
      if (this.pendingSamples >= blockSamples) this.post();
    }
    return true;
  }

  private post(): void {
    if (this.pendingSamples === 0) return;
    const block = new Int16Array(this.pendingSamples);
    let at = 0;
    for (const part of this.pending) {
      block.set(part, at);
      at += part.length;
    }
    this.pending = [];
    this.pendingSamples = 0;
    this.port.postMessage(block, [block.buffer]);
  }
}

registerProcessor(pcmProcessorName, Pcm16Processor);
