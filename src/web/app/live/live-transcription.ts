/**
 * A recording's live transcription: the microphone's stream through the worklet (pcm-stream.ts) to a realtime
 * session (realtime-socket.ts), and the captions its events make (captions.ts). Audio heard while the session
 * opens is held and sent once it is ready, so the task's audio starts where the recording did. Where the session
 * cannot open, the recording goes on without captions (the record panel uploads it when it stops).
 */
import { nextCaptions, noCaptions, type Captions } from "./captions.ts";
import { openPcmStream, pcmStreamSupported, type PcmStream } from "./pcm-stream.ts";
import { realtimeUrl } from "./realtime-events.ts";
import { openRealtimeSession, readyTimeoutMs, type RealtimeSession } from "./realtime-socket.ts";

/** connecting → live → (ended by the server); or unavailable from the start. */
export type LiveState = "connecting" | "live" | "unavailable" | "ended";

export type LiveTranscription = {
  state(): LiveState;
  captions(): Captions;
  /** What the server last said went wrong (an `error` event's message), or why the session is not there. */
  problem(): string | null;
  /** Calls `listener` after each change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** Sends what is left and closes the session: the task it became, or null (not live, or no answer in time). */
  finish(): Promise<number | null>;
  /** Lets everything go, keeping nothing asked for. */
  abandon(): void;
};

/** How long Stop waits for the session to become a task: its last turn's final pass, the audio stored, the task made. */
const finishTimeoutMs = 30_000;

/** Starts the live transcription of `stream`, or gives null where this browser lacks what it needs (AudioWorklet, WebSocket). */
export function startLiveTranscription(stream: MediaStream, speakers: boolean): LiveTranscription | null {
  return pcmStreamSupported() ? new Live(stream, speakers) : null;
}

class Live implements LiveTranscription {
  private current: LiveState = "connecting";
  private shown: Captions = noCaptions;
  private said: string | null = null;
  private taskId: number | null = null;
  private session: RealtimeSession | null = null;
  private pcm: PcmStream | null = null;
  /** Audio heard while the session opens, sent once it is ready. */
  private held: Int16Array[] = [];
  private abandoned = false;
  private readonly listeners = new Set<() => void>();
  private readonly opening: Promise<void>;

  constructor(stream: MediaStream, speakers: boolean) {
    this.opening = this.open(stream, speakers);
  }

  state = () => this.current;
  captions = () => this.shown;
  problem = () => this.said;

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async finish(): Promise<number | null> {
    // The socket gives up by itself after readyTimeoutMs; the worklet's module, fetched meanwhile, is given a second more.
    await Promise.race([this.opening, new Promise((resolve) => setTimeout(resolve, readyTimeoutMs + 1000))]);
    if (this.current === "connecting") this.abandon();
    if (this.current === "live" && this.session && this.pcm) {
      await this.pcm.flush();
      this.taskId = (await this.session.finish(finishTimeoutMs)) ?? this.taskId;
    }
    this.pcm?.close();
    return this.taskId;
  }

  abandon(): void {
    this.abandoned = true;
    this.session?.abandon();
    this.pcm?.close();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private readonly onSamples = (samples: Int16Array) => {
    if (this.session) this.session.append(samples);
    else if (this.current === "connecting") this.held.push(samples);
  };

  private async open(stream: MediaStream, speakers: boolean): Promise<void> {
    // The worklet and the socket open side by side: the audio it converts meanwhile is held.
    const converting = openPcmStream(stream, this.onSamples).then(
      (made) => (this.pcm = made),
      () => null,
    );
    const opened = await openRealtimeSession(realtimeUrl(location), speakers, {
      onEvent: (event) => {
        if (event.type === "error") this.said = event.message;
        if (event.type === "session.closed") this.taskId = event.taskId;
        this.shown = nextCaptions(this.shown, event);
        this.changed();
      },
      onEnded: () => {
        this.current = "ended";
        this.pcm?.close();
        this.changed();
      },
    });
    const converted = await converting;
    if (!opened.ok) return this.unavailable(opened.reason);
    if (!converted) {
      opened.session.abandon();
      return this.unavailable("this browser could not convert the microphone's audio");
    }
    if (this.abandoned || this.current !== "connecting") {
      opened.session.abandon();
      converted.close();
      return;
    }
    this.session = opened.session;
    for (const samples of this.held) opened.session.append(samples);
    this.held = [];
    this.current = "live";
    this.changed();
  }

  private unavailable(reason: string): void {
    this.current = "unavailable";
    this.said = reason;
    this.held = [];
    this.pcm?.close();
    this.changed();
  }
}
