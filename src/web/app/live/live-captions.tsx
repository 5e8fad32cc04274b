import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { captionLines } from "./captions.ts";
import type { LiveTranscription } from "./live-transcription.ts";

/** Redraws on each change of the live transcription (a caption, its state). */
function useLive(live: LiveTranscription): void {
  const [, redraw] = useState(0);
  useEffect(() => live.subscribe(() => redraw((count) => count + 1)), [live]);
}

/**
 * The words of a recording as they are spoken: the finished turns in a log, which screen readers read out as
 * each is added (polite: after what they are saying), and the turn still being spoken below it, shown but not
 * read out, since it changes several times a second and would be read again each time. The box keeps its last
 * line in view unless the reader has scrolled back. Where the live transcription is not available the recording
 * goes on as before, and a quiet line says so. `stopped`: the recording has stopped (the captions stay, the hints go).
 */
export function LiveCaptions({ live, stopped = false }: { live: LiveTranscription; stopped?: boolean }) {
  useLive(live);
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const state = live.state();
  const problem = live.problem();
  const { finished, partial } = captionLines(live.captions());
  useLayoutEffect(() => {
    if (pinned.current && box.current) box.current.scrollTop = box.current.scrollHeight;
  });

  if (state === "unavailable")
    return <p class="hint live-unavailable">Live captions are not available ({problem}): the recording is transcribed when you stop it.</p>;
  const onScroll = (event: Event) => {
    const element = event.currentTarget as HTMLDivElement;
    pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
  };
  return (
    <div class="live">
      <div class="live-captions" ref={box} onScroll={onScroll}>
        <div role="log" aria-live="polite" aria-label="Live captions">
          {finished.map((turn) => (
            <p key={turn.itemId}>{turn.text}</p>
          ))}
        </div>
        {partial !== "" && (
          <p class="live-partial" aria-hidden="true">
            {partial}
          </p>
        )}
        {!stopped && state === "connecting" && <p class="hint">Connecting the live captions…</p>}
        {!stopped && state === "live" && finished.length === 0 && partial === "" && <p class="hint">The words appear here as you speak.</p>}
      </div>
      {problem !== null && (
        <p class="form-error" role="alert">
          {problem}
        </p>
      )}
      {!stopped && state === "ended" && <EndedLine live={live} />}
    </div>
  );
}

/**
 * Why the captions stopped while the recording goes on, as the session's outcome calls for: it kept nothing (the
 * recording is uploaded on Stop), or it was cut off without saying (on Stop the recording is kept in the page, to
 * upload or not). A session that named its task ended the recording too, and the record panel says so.
 */
function EndedLine({ live }: { live: LiveTranscription }) {
  const outcome = live.outcome();
  if (outcome?.kind === "nothing") return <p class="hint">The live captions stopped: the recording goes on, and is transcribed when you stop it.</p>;
  if (outcome?.kind !== "unknown") return null;
  return (
    <p class="hint">
      The live captions were cut off: the recording goes on. The server may have kept what it heard, so when you stop, the recording stays in this page for you
      to upload or discard.
    </p>
  );
}
