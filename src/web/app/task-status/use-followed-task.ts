import { useEffect, useRef, useState } from "preact/hooks";
import { followTaskStatus, inProgress } from "../tasks/live-status.ts";
import { readFollowed, type Followed } from "./stage.ts";

/**
 * Follows a task in progress on its status stream (the task list's reader, `followTaskStatus`: fetch with the
 * session, at most 3 streams, reopened after a drop) while `task.status` is in progress, and says what the stream
 * last said: null before its first event. `onChange` hears every event, `"deleted"` included; it is how the page
 * moves the task it shows on (and loads the transcript once the task has finished). Following starts again when the
 * task is in progress again (a retry).
 */
export function useFollowedTask(task: { id: number; status: string } | null, onChange: (next: Followed | "deleted") => void): Followed | "deleted" | null {
  // Kept with the task it is about: another task opened in this page starts with nothing heard.
  const [followed, setFollowed] = useState<{ id: number; heard: Followed | "deleted" } | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  const id = task?.id ?? null;
  const following = task !== null && inProgress(task.status);
  useEffect(() => {
    if (id === null || !following) return;
    setFollowed(null); // a retry follows afresh
    const controller = new AbortController();
    void followTaskStatus(id, controller.signal, (status) => {
      if (controller.signal.aborted) return;
      const next = status === "deleted" ? "deleted" : readFollowed(status as typeof status & Record<string, unknown>);
      setFollowed({ id, heard: next });
      changed.current(next);
    });
    return () => controller.abort();
  }, [id, following]);
  return followed !== null && followed.id === id ? followed.heard : null;
}
