import type { RefObject } from "preact";
import { useLocation } from "preact-iso";
import type { Phase } from "./phase.ts";

type EndedActionsProps = {
  ended: Extract<Phase, { kind: "ended" }>;
  /** Record again: a new recording, and a new session. */
  record(): void;
  /** The button that takes focus as the panel comes back: the first one here. */
  first: RefObject<HTMLButtonElement | null>;
};

/** What follows a recording whose live session ended before Stop: open the task it became, or record again. */
export function EndedActions({ ended, record, first }: EndedActionsProps) {
  const { route } = useLocation();
  return (
    <div class="actions">
      <button type="button" class="primary" ref={first} onClick={() => route(`/tasks/${ended.taskId}`)}>
        Open the transcription
      </button>
      <button type="button" onClick={record}>
        Record again
      </button>
    </div>
  );
}
