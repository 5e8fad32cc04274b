import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";

type SelectionProps = {
  ids: number[];
  folders: string[];
  /** After a move or deletion: what happened, in words, and the selection is cleared by the page. */
  onDone: (message: string) => void;
};

const tasks = (n: number) => (n === 1 ? "1 task" : `${n} tasks`);

/**
 * What can be done to the selected tasks: move them to a folder (`PATCH /api/tasks/bulk/move`) or delete them
 * (`DELETE /api/tasks/bulk`, after a confirmation). The API reports how many it changed, which is what is said.
 */
export function SelectionActions({ ids, folders, onDone }: SelectionProps) {
  const [target, setTarget] = useState(folders[0] ?? "");
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  useEffect(() => {
    if (!folders.includes(target)) setTarget(folders[0] ?? "");
  }, [folders, target]);
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
      const answer = await call(api.PATCH("/api/tasks/bulk/move", { body: { ids, folder: target } }));
      return `Moved ${tasks(answer.moved_count)} to ${target}.`;
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
      {folders.length > 0 && (
        <form onSubmit={move} class="move">
          <label for="move-to" class="inline-label">
            Move to folder
          </label>
          <select id="move-to" value={target} onChange={(event) => setTarget(event.currentTarget.value)}>
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
      )}
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
