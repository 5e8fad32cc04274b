/**
 * A recording's live transcription: the microphone's stream through the worklet (pcm-stream.ts) to a realtime
 * session (realtime-socket.ts), and the captions its events make (captions.ts). Audio heard while the session
 * opens is held and sent once it is ready, so the task's audio starts where the recording did. Where the session
 * cannot open, the recording goes on without captions (the record panel uploads it when it stops). The session's
 * outcome says what became of the audio it was sent, so that the same audio is never uploaded a second time.
 */
import { nextCaptions, noCaptions, type Captions } from "./captions.ts";
import { finishTimeoutMs, type LiveOutcome } from "./live-outcome.ts";
import { openPcmStream, pcmStreamSupported, type PcmStream } from "./pcm-stream.ts";
import { realtimeUrl } from "./realtime-events.ts";
import { openRealtimeSession, readyTimeoutMs, type RealtimeSession } from "./realtime-socket.ts";

export type { LiveOutcome } from "./live-outcome.ts";

/** connecting → live → (ended by the server); or unavailable from the start. */
export type LiveState = "connecting" | "live" | "unavailable" | "ended";

export type LiveTranscription = {
  state(): LiveState;
  captions(): Captions;
  /** What the server last said went wrong (an `error` event's message), or why the session is not there. */
  problem(): string | null;
  /** What became of the audio once the session has ended (or never opened); null while it may still take audio. */
  outcome(): LiveOutcome | null;
  /** Calls `listener` after each change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** Sends what is left, closes the session and gives its outcome (a task, or what to do instead). */
  finish(): Promise<LiveOutcome>;
  /** Lets everything go, keeping nothing asked for. */
  abandon(): void;
};

/** Starts the live transcription of `stream`, or gives null where this browser lacks what it needs (AudioWorklet, WebSocket). */
export function startLiveTranscription(stream: MediaStream, speakers: boolean): LiveTranscription | null {
  return pcmStreamSupported() ? new Live(stream, speakers) : null;
}

class Live implements LiveTranscription {
  private current: LiveState = "connecting";
  private shown: Captions = noCaptions;
  private said: string | null = null;
  /** What `session.closed` said, once it came: the task, or null (nothing kept). */
  private closedWith: { taskId: number | null } | null = null;
  /** Whether any audio went to the server, which keeps what it was sent even when the session is cut off. */
  private streamed = false;
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

  outcome(): LiveOutcome | null {
    if (this.closedWith !== null) return this.closedWith.taskId !== null ? { kind: "task", taskId: this.closedWith.taskId } : { kind: "nothing" };
    if (this.current === "connecting" || this.current === "live") return null;
    return this.streamed ? { kind: "unknown", why: "dropped" } : { kind: "nothing" };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async finish(): Promise<LiveOutcome> {
    // The socket gives up by itself after readyTimeoutMs; the worklet's module, fetched meanwhile, is given a second more.
    await Promise.race([this.opening, new Promise((resolve) => setTimeout(resolve, readyTimeoutMs + 1000))]);
    if (this.current === "connecting") this.abandon();
    // Already settled (never opened, or ended by the server, which named its task or not): nothing more to ask.
    const known = this.outcome();
    if (known !== null || !this.session || !this.pcm) {
      this.abandon();
      return known ?? { kind: "nothing" };
    }
    await this.pcm.flush();
    const answer = await this.session.finish(finishTimeoutMs);
    this.pcm.close();
    if (answer.answered) this.closedWith = { taskId: answer.taskId };
    return this.outcome() ?? (this.streamed && !answer.answered ? { kind: "unknown", why: answer.why } : { kind: "nothing" });
  }

  abandon(): void {
    this.abandoned = true;
    this.session?.abandon();
    this.pcm?.close();
    if (this.current !== "connecting" && this.current !== "live") return;
    this.current = "ended";
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private readonly onSamples = (samples: Int16Array) => {
    if (this.session) {
      if (this.current === "live" && samples.length > 0) this.streamed = true;
      this.session.append(samples);
    } else if (this.current === "connecting") this.held.push(samples);
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
        if (event.type === "session.closed") this.closedWith = { taskId: event.taskId };
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
    this.current = "live";
    for (const samples of this.held) this.onSamples(samples);
    this.held = [];
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
