import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { LiveCaptions } from "../live/live-captions.tsx";
import type { LiveTranscription } from "../live/live-transcription.ts";
import { duration } from "../ui/format.ts";
import { clock, levelWords } from "./level.ts";
import type { Microphone } from "./microphone.ts";
import type { StopReason } from "./said.ts";

type RecordingViewProps = {
  microphone: Microphone;
  /** Its live transcription, whose captions show here; null where this browser has none. */
  live: LiveTranscription | null;
  /** The most seconds the balance pays for, or null when unknown (the API still refuses on sign). */
  maxSeconds: number | null;
  /** The largest upload, in bytes. */
  maxBytes: number;
  onStop(reason: StopReason): void;
  onDiscard(): void;
};

/**
 * A recording under way: its live captions, the time recorded (a `timer`, which screen readers leave silent until
 * asked: read out each second it would drown everything), the level meter with its level in words, Stop and Discard. Focus
 * moves to Stop, since the Record button pressed to start is gone. The recording stops by itself at the
 * balance's time or the largest upload, so that nothing is recorded that could not be transcribed.
 */
export function RecordingView({ microphone, live, maxSeconds, maxBytes, onStop, onDiscard }: RecordingViewProps) {
  const stop = useRef<HTMLButtonElement>(null);
  const meter = useRef<HTMLMeterElement>(null);
  const [seconds, setSeconds] = useState(0);
  const [words, setWords] = useState<string | null>(microphone.level() === null ? null : "no sound");
  useLayoutEffect(() => stop.current?.focus(), []);
  // The latest handler, without restarting the clock each time the parent draws a new one.
  const stopped = useRef(onStop);
  stopped.current = onStop;

  // The bar follows every frame, outside of rendering; the words and the clock change a few times a second.
  useEffect(() => {
    let frame = 0;
    const draw = () => {
      const level = microphone.level();
      if (meter.current && level !== null) meter.current.value = level;
      frame = requestAnimationFrame(draw);
    };
    frame = requestAnimationFrame(draw);
    const tick = setInterval(() => {
      const now = microphone.seconds();
      setSeconds(now);
      const level = microphone.level();
      if (level !== null) setWords(levelWords(level));
      // 64 KiB (over a second of audio) ahead of the largest upload, and half a second ahead of the balance: the sent duration rounds.
      if (maxSeconds !== null && now >= maxSeconds - 0.5) stopped.current("time");
      else if (microphone.bytes() >= maxBytes - 64 * 1024) stopped.current("size");
    }, 250);
    return () => {
      cancelAnimationFrame(frame);
      clearInterval(tick);
    };
  }, [microphone, maxSeconds, maxBytes]);

  return (
    <div class="recording">
      <p class="record-clock">
        <span class="record-dot" aria-hidden="true" />
        <span role="timer" aria-label="Time recorded">
          {clock(seconds)}
        </span>
        {maxSeconds !== null && <span class="hint"> · your balance allows {duration(maxSeconds)}</span>}
      </p>
      {words !== null && (
        <div class="record-level">
          <label for="record-level">Microphone level</label>
          <meter id="record-level" ref={meter} min={0} max={1} low={0.15} high={0.9} optimum={0.6} aria-valuetext={words} />
          <span aria-hidden="true">{words}</span>
        </div>
      )}
      {live && <LiveCaptions live={live} />}
      <div class="actions">
        <button type="button" class="primary" ref={stop} onClick={() => onStop("stop")}>
          Stop and transcribe
        </button>
        <button type="button" onClick={onDiscard}>
          Discard the recording
        </button>
      </div>
    </div>
  );
}
