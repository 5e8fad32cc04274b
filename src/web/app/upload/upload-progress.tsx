import { useLayoutEffect, useRef } from "preact/hooks";
import { duration } from "../ui/format.ts";
import type { Rate } from "./progress-meter.ts";
import { bytes, bytesPerSecond } from "./units.ts";

/**
 * The upload under way: a real <progress> named by its label, the bytes sent, the speed and the time left, and
 * Cancel. The figures are not a live region: read out several times a second they would drown everything else;
 * the progress bar's value is there for whoever asks. Focus moves to Cancel, since the button pressed to start
 * is gone with its form.
 */
export function UploadProgress({ name, rate, onCancel }: { name: string; rate: Rate; onCancel(): void }) {
  const cancel = useRef<HTMLButtonElement>(null);
  // In the same commit as the render: focus never falls to the page between the form going and Cancel coming.
  useLayoutEffect(() => cancel.current?.focus(), []);
  const done = rate.sent >= rate.total;
  const percent = rate.total > 0 ? Math.floor((rate.sent * 100) / rate.total) : 0;
  return (
    <div class="upload-progress">
      <label for="upload-progress">Uploading “{name}”</label>
      <progress id="upload-progress" max={100} value={percent}>
        {percent} %
      </progress>
      <p class="upload-figures">
        <span>
          {percent} % · {bytes(rate.sent)} of {bytes(rate.total)}
        </span>
        {done ? (
          <span>Creating the transcription…</span>
        ) : (
          <>
            <span>{rate.bytesPerSecond === null ? "Measuring speed…" : bytesPerSecond(rate.bytesPerSecond)}</span>
            {rate.secondsLeft !== null && <span>about {duration(Math.max(1, rate.secondsLeft))} left</span>}
          </>
        )}
      </p>
      <button type="button" class="danger" ref={cancel} onClick={onCancel} disabled={done}>
        Cancel upload
      </button>
    </div>
  );
}
