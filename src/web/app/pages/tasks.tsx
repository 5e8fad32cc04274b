import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { api, call, type components } from "../api.ts";
import { Notifications, QueueCounts } from "../tasks/activity.tsx";
import { Filters } from "../tasks/filters.tsx";
import { type FolderList, Folders } from "../tasks/folders.tsx";
import { Pagination } from "../tasks/pagination.tsx";
import { apiQuery, readTaskQuery, type TaskQuery, taskListUrl } from "../tasks/query.ts";
import { SelectionActions } from "../tasks/selection-actions.tsx";
import { useSelection } from "../tasks/selection.ts";
import { TaskRows } from "../tasks/task-rows.tsx";
import { type Loaded, useLoaded } from "../tasks/use-loaded.ts";
import { useTitle } from "../ui/navigation.tsx";
import "../tasks/tasks.css";

type TaskList = components["schemas"]["TaskList"];
type User = components["schemas"]["User"];
type Notification = components["schemas"]["Notification"];

/** The list's live region: what the last bulk action did, then how many tasks match (once the page asked for is in). */
function ListSummary({ said, list, folder }: { said: string; list: Loaded<TaskList>; folder: string | null }) {
  return (
    <p role="status" class="task-summary">
      {said}
      {said && " "}
      {list.value && !list.stale && `${list.value.total === 1 ? "1 transcription" : `${list.value.total} transcriptions`}${folder ? ` in ${folder}` : ""}.`}
    </p>
  );
}

/** What the page reads: the tasks `query` asks for (loaded again when its `url` changes), the folders, the account and its notifications. */
function useTaskListData(query: TaskQuery, url: string) {
  const list = useLoaded<TaskList>(() => call(api.GET("/api/tasks", { params: { query: apiQuery(query) } })), url);
  const folders = useLoaded<FolderList>(() => call(api.GET("/api/folders")), "");
  const user = useLoaded<User>(() => call(api.GET("/api/user")), "");
  const notifications = useLoaded<Notification[]>(() => call(api.GET("/api/notifications")), "");
  const everything = () => {
    list.reload();
    folders.reload();
    user.reload();
    notifications.reload();
  };
  return { list, folders, user, notifications, everything };
}

type TaskSideProps = {
  query: TaskQuery;
  folders: FolderList | null;
  user: User | null;
  notifications: Loaded<Notification[]>;
  /** After a change: the folder to show now (a renamed one by its new name, null after a deletion), and reload. */
  onFoldersChanged: (show: string | null | undefined) => void;
};

/** Beside the list: the folders with their counts, the account's queue and its latest notifications. */
function TaskSide({ query, folders, user, notifications, onFoldersChanged }: TaskSideProps) {
  return (
    <aside class="task-side">
      <Folders folders={folders} query={query} hrefFor={(folder) => taskListUrl(query, { folder })} onChanged={onFoldersChanged} />
      <QueueCounts queue={user?.queue ?? null} />
      <Notifications notifications={notifications.value} onRead={notifications.reload} />
    </aside>
  );
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
  const { list, folders, user, notifications, everything } = useTaskListData(query, url);
  const selection = useSelection(url);
  const [said, setSaid] = useState("");

  const go = (change: Partial<TaskQuery>) => route(taskListUrl(query, change));
  const rows = list.value?.data ?? [];

  return (
    <section class="task-page">
      <div class="task-heading">
        <h1>Transcriptions</h1>
        <a href="/new" class="button primary">
          New transcription
        </a>
      </div>
      <div class="task-layout">
        <TaskSide
          query={query}
          folders={folders.value}
          user={user.value}
          notifications={notifications}
          onFoldersChanged={(show) => {
            if (show !== undefined) go({ folder: show });
            everything();
          }}
        />
        <div class="task-content">
          <Filters query={query} onApply={go} />
          <ListSummary said={said} list={list} folder={query.folder} />
          {list.problem && (
            <p role="alert" class="form-error">
              {list.problem} <a href="/">Show all transcriptions</a>
            </p>
          )}
          {selection.selected.size > 0 && (
            <SelectionActions
              ids={[...selection.selected]}
              folders={folders.value?.folders.map((folder) => folder.name) ?? []}
              onDone={(message) => {
                setSaid(message);
                selection.selectOnly([]);
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
            <TaskRows
              rows={rows}
              selection={selection}
              busy={list.stale}
              onChanged={() => {
                list.reload();
                user.reload();
                notifications.reload();
              }}
            />
          )}
          {/* The page of the rows shown, not of the URL: the two differ until the new page's rows arrive. */}
          {list.value && <Pagination page={list.value.current_page} lastPage={list.value.last_page} hrefFor={(page) => taskListUrl(query, { page })} />}
        </div>
      </div>
    </section>
  );
}
