/** The statuses `GET /api/tasks?status=` takes; `all` is the default. */
export const statuses = ["all", "pending", "waiting", "scribing", "finished", "failed"] as const;
export type StatusFilter = (typeof statuses)[number];
export const pageSizes = [10, 25, 50, 100] as const;

/**
 * What the task list shows, kept in the page's query string (`/?search=&status=&folder=&page=&per_page=`) so that
 * a reload, the back button and a shared link show the same list. Defaults are left out of the URL.
 */
export type TaskQuery = { search: string; status: StatusFilter; folder: string | null; page: number; perPage: number };

const positive = (value: string | undefined, fallback: number, max: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
};

export function readTaskQuery(query: Record<string, string>): TaskQuery {
  const status = statuses.find((s) => s === query.status) ?? "all";
  return {
    search: query.search ?? "",
    status,
    folder: query.folder ? query.folder : null,
    page: positive(query.page, 1, 1_000_000),
    perPage: positive(query.per_page, 25, 100),
  };
}

/** The list's URL for a query; `change` resets the page to 1 unless it names one (a new filter starts at its first page). */
export function taskListUrl(current: TaskQuery, change: Partial<TaskQuery> = {}): string {
  const next: TaskQuery = { ...current, page: 1, ...change };
  const params = new URLSearchParams();
  if (next.search !== "") params.set("search", next.search);
  if (next.status !== "all") params.set("status", next.status);
  if (next.folder !== null) params.set("folder", next.folder);
  if (next.page !== 1) params.set("page", String(next.page));
  if (next.perPage !== 25) params.set("per_page", String(next.perPage));
  const search = params.toString();
  return search === "" ? "/" : `/?${search}`;
}

/** The API's query for it. */
export function apiQuery(query: TaskQuery) {
  return {
    ...(query.search.trim() !== "" && { search: query.search.trim() }),
    status: query.status,
    ...(query.folder !== null && { folder: query.folder }),
    page: query.page,
    per_page: query.perPage,
  };
}
