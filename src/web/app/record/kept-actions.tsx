import type { RefObject } from "preact";
import type { Phase } from "./phase.ts";
import type { Recording } from "./use-recording.ts";

type KeptActionsProps = {
  kept: Extract<Phase, { kind: "kept" }>;
  recording: Pick<Recording, "upload" | "completeAgain" | "discard">;
  /** The button that takes focus as the panel comes back: the first one here. */
  first: RefObject<HTMLButtonElement | null>;
};

/**
 * What can be done with a recording that is not uploaded: complete it again when its bytes are all stored, else
 * upload it (again); or discard it.
 */
export function KeptActions({ kept, recording, first }: KeptActionsProps) {
  const { stored, file } = kept;
  return (
    <div class="actions">
      {stored ? (
        <button type="button" ref={first} onClick={() => recording.completeAgain(stored, file)}>
          Create the transcription again
        </button>
      ) : (
        <button
          type="button"
          ref={first}
          class="primary"
          onClick={() => recording.upload(file, kept.again ? "Uploading the recording again…" : "Uploading the recording…")}
        >
          {kept.again ? "Upload the recording again" : "Upload the recording"}
        </button>
      )}
      <button type="button" onClick={recording.discard}>
        Discard the recording
      </button>
    </div>
  );
}
