/**
 * The live PocketSphinx decoder's thread: one per recognizer, holding one decoder. Audio and requests are queued and
 * worked through in order, a slice at a time, so that a partial answers after every sample pushed before it, and a
 * `clear` or `close` sent behind a backlog is read between slices (within one slice's decoding, tens of ms) instead of
 * after the whole backlog. After each slice (and before each answer) the thread says how many samples it is done
 * with, so the recognizer knows how much audio waits undecoded and the session can refuse more while it is behind.
 */
import { NativeSphinxDecoder } from "./sphinx-native-decoder.ts";
import { lowerThisThreadPriority, realTimeWorkNice } from "../../core/thread-priority.ts";
import { SphinxTurnDecoding } from "./sphinx-turn.ts";
import type { FromDecoderThread, ToDecoderThread } from "./sphinx-thread-messages.ts";

declare const self: Worker;

/** Samples decoded between two looks at the messages: 0.25 s of audio, about 50 to 120 ms of one core here. */
const sliceSamples = 4096;

type Work = { kind: "samples"; samples: Int16Array } | { kind: "partial"; id: number } | { kind: "finish"; id: number } | { kind: "clear" };

let decoder: NativeSphinxDecoder | null = null;
let turn: SphinxTurnDecoding | null = null;
const queue: Work[] = [];
let scheduled = false;

const reply = (message: FromDecoderThread) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ToDecoderThread>) => {
  const message = event.data;
  switch (message.type) {
    case "open":
      open(message.args, message.libraries);
      return;
    case "push":
      queue.push({ kind: "samples", samples: message.samples });
      break;
    case "partial":
    case "finish":
      queue.push({ kind: message.type, id: message.id });
      break;
    case "clear": {
      // Audio queued since the last request would only be decoded to be dropped.
      let dropped = 0;
      while (queue.at(-1)?.kind === "samples") dropped += (queue.pop() as Extract<Work, { kind: "samples" }>).samples.length;
      if (dropped > 0) reply({ type: "decoded", samples: dropped });
      queue.push({ kind: "clear" });
      break;
    }
    case "close":
      queue.length = 0;
      decoder?.free();
      decoder = null;
      turn = null;
      reply({ type: "closed" });
      return;
  }
  schedule();
};

function open(args: string[], libraries: Parameters<typeof NativeSphinxDecoder.create>[1]): void {
  // Behind the event loop's thread, so a dozen sessions decoding on a small machine do not hold up every request.
  lowerThisThreadPriority(realTimeWorkNice);
  try {
    decoder = NativeSphinxDecoder.create(args, libraries);
    turn = new SphinxTurnDecoding(decoder);
    reply({ type: "ready" });
  } catch (error) {
    reply({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
}

function schedule(): void {
  if (scheduled || queue.length === 0) return;
  scheduled = true;
  setImmediate(workOneSlice);
}

function workOneSlice(): void {
  scheduled = false;
  if (!turn) return;
  let budget = sliceSamples;
  let decoded = 0;
  const acknowledge = () => {
    if (decoded > 0) reply({ type: "decoded", samples: decoded });
    decoded = 0;
  };
  while (budget > 0) {
    const work = queue[0];
    if (!work) break;
    if (work.kind === "samples") {
      const part = work.samples.subarray(0, budget);
      turn.process(part);
      budget -= part.length;
      decoded += part.length;
      if (part.length === work.samples.length) queue.shift();
      else work.samples = work.samples.subarray(part.length);
      continue;
    }
    queue.shift();
    acknowledge();
    if (work.kind === "partial") reply({ type: "partial", id: work.id, text: turn.partial() });
    else if (work.kind === "finish") reply({ type: "finished", id: work.id, result: turn.finish() });
    else turn.clear();
  }
  acknowledge();
  schedule();
}
