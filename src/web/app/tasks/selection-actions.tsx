import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";

type SelectionProps = {
  ids: number[];
  /** The account's folders by name; "Uncategorized" is offered after them. */
  folders: string[];
  /** After a move or deletion: what happened, in words, and the selection is cleared by the page. */
  onDone: (message: string) => void;
};

const tasks = (n: number) => (n === 1 ? "1 task" : `${n} tasks`);

/** The bulk move's name for "in no folder" (as the list's filter): it takes the tasks out of their folders. */
const uncategorized = "Uncategorized";

/**
 * What can be done to the selected tasks: move them to a folder or out of their folders, to Uncategorized
 * (`PATCH /api/tasks/bulk/move`), or delete them (`DELETE /api/tasks/bulk`, after a confirmation). The API reports
 * how many it changed, which is what is said.
 */
export function SelectionActions({ ids, folders: named, onDone }: SelectionProps) {
  const folders = [...named, uncategorized];
  const [target, setTarget] = useState(() => named[0] ?? uncategorized);
  // A folder renamed or deleted meanwhile is no target: the first one is.
  const chosen = folders.includes(target) ? target : (folders[0] ?? uncategorized);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setProblem(null);
    try {
      onDone(await work());
      setConfirming(false);
    } catch (error) {
      setProblem(ApiError.of(error).message);
    }
    setBusy(false);
  };
  const move = (event: SubmitEvent) => {
    event.preventDefault();
    void act(async () => {
      const answer = await call(api.PATCH("/api/tasks/bulk/move", { body: { ids, folder: chosen } }));
      return `Moved ${tasks(answer.moved_count)} to ${chosen}.`;
    });
  };
  const remove = () =>
    act(async () => {
      const answer = await call(api.DELETE("/api/tasks/bulk", { body: { ids } }));
      return `Deleted ${tasks(answer.deleted_count)}.`;
    });
  return (
    <section class="selection" aria-labelledby="selection-heading">
      <h2 id="selection-heading">{tasks(ids.length)} selected</h2>
      {problem && (
        <p class="form-error" role="alert">
          {problem}
        </p>
      )}
      <form onSubmit={move} class="move">
        <label for="move-to" class="inline-label">
          Move to folder
        </label>
        <select id="move-to" value={chosen} onChange={(event) => setTarget(event.currentTarget.value)}>
          {folders.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          Move
        </button>
      </form>
      {confirming ? (
        <div class="actions">
          <button type="button" class="danger" ref={confirm} disabled={busy} onClick={remove}>
            Delete {tasks(ids.length)} for good
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <div class="actions">
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Delete selected
          </button>
        </div>
      )}
    </section>
  );
}
