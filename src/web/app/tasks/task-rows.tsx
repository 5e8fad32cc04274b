import type { Selection } from "./selection.ts";
import { type TaskListItem, TaskRow } from "./task-row.tsx";

type TaskRowsProps = {
  rows: TaskListItem[];
  selection: Selection;
  /** The rows are an older page's, while the page asked for loads. */
  busy: boolean;
  /** A task's status or retry changed what the page counts elsewhere. */
  onChanged: () => void;
};

/** The page's tasks, each with its checkbox, under one that selects them all. */
export function TaskRows({ rows, selection, busy, onChanged }: TaskRowsProps) {
  const { selected, select, selectOnly } = selection;
  const allSelected = rows.length > 0 && rows.every((task) => selected.has(task.id));
  return (
    <>
      <div class="select-all">
        <input
          id="select-all"
          type="checkbox"
          checked={allSelected}
          onChange={(event) => selectOnly(event.currentTarget.checked ? rows.map((task) => task.id) : [])}
        />
        <label for="select-all" class="inline-label">
          Select all on this page
        </label>
      </div>
      <ul class="task-list" aria-label="Transcriptions" aria-busy={busy}>
        {rows.map((task) => (
          <TaskRow key={task.id} task={task} selected={selected.has(task.id)} onSelect={select} onChanged={onChanged} />
        ))}
      </ul>
    </>
  );
}
