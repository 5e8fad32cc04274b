import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import type { EngineName } from "../../tasks/recognition-choice.ts";
import { RecognitionError, type SpeechEngine } from "../../transcription/engine.ts";
import type { StreamingEngine, StreamingOptions, TurnRecognizer } from "../streaming-engine.ts";
import { defaultWindowOptions, WindowedRecognizer, type WindowOptions } from "./windowed-recognizer.ts";

/**
 * A batch engine (whisper, OpenAI) offered live through a sliding window (windowed-recognizer.ts). Each session gets
 * its own folder under `tempRoot` (TRANSCRIPTION_TMPDIR) for the WAVs it hands the engine, named like a task's
 * (`scribe-task-<pid>-0-live-*`) so that the temp sweep (src/transcription/temp-sweep.ts) removes it if this process
 * dies before the session closes it. The batch engine is shared by every session: whisper runs one chunk at a time
 * per process, so sessions' recognitions take turns.
 */
export class WindowedStreamingEngine implements StreamingEngine {
  private readonly window: WindowOptions;

  constructor(
    readonly name: EngineName,
    private readonly batch: SpeechEngine,
    private readonly tempRoot: string,
    window: Partial<WindowOptions> = {},
  ) {
    this.window = { ...defaultWindowOptions, ...window };
  }

  async open(options: StreamingOptions): Promise<TurnRecognizer> {
    let dir: string;
    try {
      dir = await mkdtemp(join(this.tempRoot, `scribe-task-${process.pid}-0-live-`));
    } catch (error) {
      throw new RecognitionError(`Live recognition (${this.name}) could not make its temporary folder: ${(error as Error).message}`);
    }
    return new WindowedRecognizer(this.batch, dir, options, this.window);
  }
}
