import { pageSizes, statuses, type StatusFilter, type TaskQuery } from "./query.ts";

const statusLabels: Record<StatusFilter, string> = {
  all: "All",
  pending: "Pending",
  waiting: "Waiting",
  scribing: "Scribing",
  finished: "Finished",
  failed: "Failed",
};

/** The usual page sizes, and the URL's own if it names another (`per_page` takes 1 to 100). */
const sizesWith = (current: number) => [...new Set<number>([...pageSizes, current])].sort((a, b) => a - b);

/**
 * Search by name, the status filter and the page size, as one search form: submitting it (or changing a list)
 * puts them in the URL. The input is uncontrolled and keyed by the URL's search, so back and forward refill it.
 */
export function Filters({ query, onApply }: { query: TaskQuery; onApply: (change: Partial<TaskQuery>) => void }) {
  const apply = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const status = statuses.find((s) => s === data.get("status")) ?? "all";
    onApply({ search: String(data.get("search") ?? ""), status, perPage: Number(data.get("per_page")) || 25 });
  };
  return (
    <form
      aria-label="Search and filter"
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        apply(event.currentTarget);
      }}
    >
      <div class="field grow">
        <label for="task-search">Search by name</label>
        <input id="task-search" key={query.search} name="search" type="search" defaultValue={query.search} maxLength={255} />
      </div>
      <div class="field">
        <label for="task-status">Status</label>
        <select id="task-status" name="status" value={query.status} onChange={(event) => event.currentTarget.form && apply(event.currentTarget.form)}>
          {statuses.map((status) => (
            <option key={status} value={status}>
              {statusLabels[status]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="per-page">Per page</label>
        <select id="per-page" name="per_page" value={String(query.perPage)} onChange={(event) => event.currentTarget.form && apply(event.currentTarget.form)}>
          {sizesWith(query.perPage).map((size) => (
            <option key={size} value={String(size)}>
              {size}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Search</button>
    </form>
  );
}
