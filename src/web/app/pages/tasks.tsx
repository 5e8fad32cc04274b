import { useLocation } from "preact-iso";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, api, call, type components } from "../api.ts";
import { Notifications, QueueCounts } from "../tasks/activity.tsx";
import { Filters } from "../tasks/filters.tsx";
import { type FolderList, Folders } from "../tasks/folders.tsx";
import { Pagination } from "../tasks/pagination.tsx";
import { apiQuery, readTaskQuery, type TaskQuery, taskListUrl } from "../tasks/query.ts";
import { SelectionActions } from "../tasks/selection-actions.tsx";
import { TaskRow } from "../tasks/task-row.tsx";
import { useTitle } from "../ui/navigation.tsx";
import "../tasks/tasks.css";

type TaskList = components["schemas"]["TaskList"];
type User = components["schemas"]["User"];
type Notification = components["schemas"]["Notification"];

/**
 * Loads `load()` again whenever `key` changes or `reload()` is called; an answer to an older load is dropped. The
 * older value stays on screen meanwhile (no flicker), marked `stale` until the answer for `key` arrives.
 */
function useLoaded<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ value: T | null; problem: string | null; key: string | null }>({ value: null, problem: null, key: null });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setState({ value, problem: null, key }),
      (error: unknown) => current && setState((now) => ({ value: now.value, problem: ApiError.of(error).message, key })),
    );
    return () => {
      current = false;
    };
  }, [key, round]);
  return { value: state.value, problem: state.problem, stale: state.key !== key, reload: useCallback(() => setRound((r) => r + 1), []) };
}

/**
 * The task list, where a signed-in user lands: folders with their counts, search, status filter and pages (all in
 * the URL), every task's status live, several tasks moved or deleted at once, failed tasks retried, and the
 * account's queue and latest notifications.
 */
export function TaskList() {
  useTitle("Transcriptions");
  const { query: raw, route } = useLocation();
  const query = readTaskQuery(raw);
  const url = taskListUrl(query, { page: query.page });
  const list = useLoaded<TaskList>(() => call(api.GET("/api/tasks", { params: { query: apiQuery(query) } })), url);
  const folders = useLoaded<FolderList>(() => call(api.GET("/api/folders")), "");
  const user = useLoaded<User>(() => call(api.GET("/api/user")), "");
  const notifications = useLoaded<Notification[]>(() => call(api.GET("/api/notifications")), "");
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [said, setSaid] = useState("");

  // A selection belongs to the page it was made on.
  useEffect(() => setSelected(new Set()), [url]);

  const go = (change: Partial<TaskQuery>) => route(taskListUrl(query, change));
  const everything = () => {
    list.reload();
    folders.reload();
    user.reload();
    notifications.reload();
  };
  const rows = list.value?.data ?? [];
  const allSelected = rows.length > 0 && rows.every((task) => selected.has(task.id));
  const select = (id: number, on: boolean) =>
    setSelected((now) => {
      const next = new Set(now);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <section class="task-page">
      <div class="task-heading">
        <h1>Transcriptions</h1>
        <a href="/new" class="button primary">
          New transcription
        </a>
      </div>
      <div class="task-layout">
        <aside class="task-side">
          <Folders
            folders={folders.value}
            query={query}
            hrefFor={(folder) => taskListUrl(query, { folder })}
            onChanged={(show) => {
              if (show !== undefined) go({ folder: show });
              everything();
            }}
          />
          <QueueCounts queue={user.value?.queue ?? null} />
          <Notifications notifications={notifications.value} onRead={notifications.reload} />
        </aside>
        <div class="task-content">
          <Filters query={query} onApply={go} />
          <p role="status" class="task-summary">
            {said}
            {said && " "}
            {list.value &&
              !list.stale &&
              `${list.value.total === 1 ? "1 transcription" : `${list.value.total} transcriptions`}${query.folder ? ` in ${query.folder}` : ""}.`}
          </p>
          {list.problem && (
            <p role="alert" class="form-error">
              {list.problem} <a href="/">Show all transcriptions</a>
            </p>
          )}
          {selected.size > 0 && (
            <SelectionActions
              ids={[...selected]}
              folders={folders.value?.folders.map((folder) => folder.name) ?? []}
              onDone={(message) => {
                setSaid(message);
                setSelected(new Set());
                everything();
              }}
            />
          )}
          {list.value && !list.stale && rows.length === 0 && (
            <p>
              {query.search || query.status !== "all" || query.folder ? "No transcriptions match." : "No transcriptions yet."}{" "}
              <a href="/new">Start a new transcription</a>.
            </p>
          )}
          {rows.length > 0 && (
            <>
              <div class="select-all">
                <input
                  id="select-all"
                  type="checkbox"
                  checked={allSelected}
                  onChange={(event) => setSelected(event.currentTarget.checked ? new Set(rows.map((task) => task.id)) : new Set())}
                />
                <label for="select-all" class="inline-label">
                  Select all on this page
                </label>
              </div>
              <ul class="task-list" aria-label="Transcriptions" aria-busy={list.stale}>
                {rows.map((task) => (
                  <TaskRow
                    key={task.id}
                    task={task}
                    selected={selected.has(task.id)}
                    onSelect={select}
                    onChanged={() => {
                      list.reload();
                      user.reload();
                      notifications.reload();
                    }}
                  />
                ))}
              </ul>
            </>
          )}
          {/* The page of the rows shown, not of the URL: the two differ until the new page's rows arrive. */}
          {list.value && <Pagination page={list.value.current_page} lastPage={list.value.last_page} hrefFor={(page) => taskListUrl(query, { page })} />}
        </div>
      </div>
    </section>
  );
}
