import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, type components } from "../api.ts";
import { fetchTask, saveTask, versionOf } from "../transcript/task-version.ts";
import { Field, FormError, Submit, useForm } from "../ui/form.tsx";
import { renamedElsewhere, renameTask } from "./rename.ts";

type Task = components["schemas"]["Task"];

/**
 * The task page's heading, its name, and Rename: `PATCH /api/tasks/{id}` {name} on the version the page shows
 * (If-Match, task-version.ts), so that a rename made elsewhere meanwhile is not overwritten unseen (rename.ts). The
 * API's refusals (an empty name, one over 255 characters, text-direction controls) show next to the field.
 */
export function TaskHeading({ task, onRenamed, renamable }: { task: Task; onRenamed: (task: Task) => void; renamable: boolean }) {
  const [renaming, setRenaming] = useState(false);
  const [said, setSaid] = useState("");
  const opener = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(false);
  // The field takes the focus when it appears, and Rename gets it back when the field goes.
  useLayoutEffect(() => {
    if (renaming) document.getElementById("task-name")?.focus();
    else if (wasRenaming.current) opener.current?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);
  const form = useForm(async (data) => {
    const name = String(data.get("name") ?? "").trim();
    if (name === task.name) {
      setRenaming(false);
      return;
    }
    const outcome = await renameTask(task, name, {
      save: (next, base) => saveTask(task.id, { name: next }, versionOf(base)),
      read: () => fetchTask(task.id),
    });
    if ("renamedElsewhere" in outcome) {
      onRenamed(outcome.renamedElsewhere);
      const message = renamedElsewhere(outcome.renamedElsewhere.name);
      throw new ApiError(412, message, { name: [message] });
    }
    onRenamed(outcome.renamed);
    setSaid(`Renamed to “${outcome.renamed.name}”.`);
    setRenaming(false);
  });
  return (
    <div class="task-heading-name">
      <h1>{task.name}</h1>
      {renaming ? (
        <form onSubmit={form.onSubmit} noValidate class="rename-task">
          <FormError error={form.error} />
          <Field label="New name" name="name" id="task-name" defaultValue={task.name} errors={form.errors} />
          <div class="actions">
            <Submit busy={form.busy}>Save name</Submit>
            <button type="button" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        renamable && (
          <button
            type="button"
            ref={opener}
            onClick={() => {
              setSaid("");
              setRenaming(true);
            }}
          >
            Rename
          </button>
        )
      )}
      <p role="status" class="rename-outcome">
        {said}
      </p>
    </div>
  );
}
