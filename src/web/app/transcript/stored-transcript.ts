import { useCallback, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import type { Change, Task } from "./edit-types.ts";
import { toPatch, type Segment } from "./segments.ts";
import { fetchTask, saveTask, versionOf } from "./task-version.ts";

export type StoredTranscript = {
  /** The transcript shown: the one the server last answered with. */
  segments: readonly Segment[];
  /** The same, for handlers that run between renders. */
  saved: { readonly current: readonly Segment[] };
  /** Shows the server's newer task: its transcript replaces the one shown, and edits are made on its version from now. */
  adopt(newer: Task): void;
  /**
   * PATCHes what `change` makes of `before` on the version it was made on; after a 412, again on the newer version
   * while the newer transcript is still `before`. "conflict" when it is not: the newer task is adopted.
   */
  store(change: Change, before: readonly Segment[]): Promise<Task | "conflict">;
};

const sameSegments = (a: readonly Segment[], b: readonly Segment[]) => JSON.stringify(toPatch(a)) === JSON.stringify(toPatch(b));

/** The transcript as the server has it, and its version (`If-Match`), which each save moves on; `onSaved` hears every newer task. */
export function useStoredTranscript(task: Task, onSaved: (task: Task) => void): StoredTranscript {
  const taskId = task.id;
  const initial = task.segments ?? [];
  const [segments, setSegments] = useState<readonly Segment[]>(initial);
  const saved = useRef<readonly Segment[]>(initial);
  const version = useRef<string | null>(versionOf(task));

  const adopt = useCallback(
    (newer: Task) => {
      const after = newer.segments ?? [];
      saved.current = after;
      version.current = versionOf(newer);
      setSegments(after);
      onSaved(newer);
    },
    [onSaved],
  );

  const store = useCallback(
    async (change: Change, before: readonly Segment[]): Promise<Task | "conflict"> => {
      const body = { segments: toPatch(change(before)) };
      let known = version.current;
      for (let attempt = 1; attempt <= 3; attempt++) {
        // Without a known version (a task object not read with its ETag) the version is read first, the same way.
        if (known === null || attempt > 1) {
          const newer = await fetchTask(taskId);
          if (!sameSegments(newer.segments ?? [], before)) {
            adopt(newer);
            return "conflict";
          }
          known = versionOf(newer);
          version.current = known;
          onSaved(newer);
        }
        try {
          return await saveTask(taskId, body, known);
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 412)) throw error;
        }
      }
      throw new ApiError(412, "The task keeps changing elsewhere; try again in a moment.");
    },
    [taskId, adopt, onSaved],
  );

  return { segments, saved, adopt, store };
}
