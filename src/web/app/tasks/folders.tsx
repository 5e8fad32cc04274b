import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, call, type components } from "../api.ts";
import { Field, FormError, Submit, useForm } from "../ui/form.tsx";
import type { TaskQuery } from "./query.ts";

export type FolderList = components["schemas"]["FolderList"];

type FoldersProps = {
  folders: FolderList | null;
  query: TaskQuery;
  /** The list's URL for another folder (null: all tasks). */
  hrefFor: (folder: string | null) => string;
  /** After a change: the folder to show now (a renamed one by its new name, null after a deletion), and reload. */
  onChanged: (show: string | null | undefined) => void;
};

function FolderLink({ href, current, name, count }: { href: string; current: boolean; name: string; count: number }) {
  return (
    <li>
      <a href={href} aria-current={current ? "page" : undefined}>
        <span>{name}</span> <span class="count">{count}</span>
      </a>
    </li>
  );
}

/** The open folder's rename and delete; deleting asks once more, and leaves its tasks uncategorized. */
function FolderActions({ name, onChanged }: { name: string; onChanged: FoldersProps["onChanged"] }) {
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  // The control that appears takes the focus, so the keyboard carries on where the eyes go.
  useLayoutEffect(() => {
    if (renaming) document.getElementById("rename-folder")?.focus();
    if (confirming) confirm.current?.focus();
  }, [renaming, confirming]);
  const rename = useForm(async (data) => {
    const next = String(data.get("name") ?? "").trim();
    await call(api.PATCH("/api/folders/{name}", { params: { path: { name } }, body: { name: next } }));
    setRenaming(false);
    onChanged(next);
  });
  const remove = async () => {
    try {
      await call(api.DELETE("/api/folders/{name}", { params: { path: { name } } }));
      onChanged(null);
    } catch (error) {
      setProblem(ApiError.of(error).message);
    }
  };
  if (renaming) {
    return (
      <form onSubmit={rename.onSubmit} noValidate class="folder-form">
        <FormError error={rename.error} />
        <Field label={`New name for ${name}`} name="name" id="rename-folder" errors={rename.errors} />
        <div class="actions">
          <Submit busy={rename.busy}>Rename</Submit>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </div>
      </form>
    );
  }
  return (
    <div class="folder-form">
      {problem && (
        <p class="form-error" role="alert">
          {problem}
        </p>
      )}
      {confirming ? (
        <div class="actions">
          <button type="button" class="danger" ref={confirm} onClick={remove}>
            Confirm deleting {name}
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <div class="actions">
          <button type="button" onClick={() => setRenaming(true)}>
            Rename {name}
          </button>
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Delete {name}
          </button>
        </div>
      )}
    </div>
  );
}

/**
 * A new folder (`POST /api/folders`): a name of at most 14 columns, unique; the API's messages show by the field. No
 * maxLength on the fields: it would cut a longer name silently (and count a Chinese character as one), where the
 * API refuses it with the limit in words.
 */
function NewFolder({ onChanged }: { onChanged: FoldersProps["onChanged"] }) {
  const form = useForm(async (data, element) => {
    await call(api.POST("/api/folders", { body: { name: String(data.get("name") ?? "").trim() } }));
    element.reset();
    onChanged(undefined);
  });
  return (
    <form onSubmit={form.onSubmit} noValidate class="folder-form">
      <FormError error={form.error} />
      <Field label="New folder" name="name" id="new-folder" errors={form.errors} />
      <Submit busy={form.busy}>Create folder</Submit>
    </form>
  );
}

/** The folders with their task counts (`GET /api/folders`), as links that filter the list, and their management. */
export function Folders({ folders, query, hrefFor, onChanged }: FoldersProps) {
  return (
    <nav aria-labelledby="folders-heading" class="folders">
      <h2 id="folders-heading">Folders</h2>
      {folders && (
        <ul>
          <FolderLink href={hrefFor(null)} current={query.folder === null} name="All transcriptions" count={folders.total_count} />
          {folders.folders.map((folder) => (
            <FolderLink key={folder.id} href={hrefFor(folder.name)} current={query.folder === folder.name} name={folder.name} count={folder.count} />
          ))}
          <FolderLink href={hrefFor("Uncategorized")} current={query.folder === "Uncategorized"} name="Uncategorized" count={folders.uncategorized_count} />
        </ul>
      )}
      {query.folder !== null && query.folder !== "Uncategorized" && <FolderActions key={query.folder} name={query.folder} onChanged={onChanged} />}
      <NewFolder onChanged={onChanged} />
    </nav>
  );
}
