import { useEffect, useState } from "preact/hooks";

export type Selection = {
  selected: ReadonlySet<number>;
  /** Ticks or unticks one task. */
  select: (id: number, on: boolean) => void;
  /** Selects exactly these tasks (none to clear). */
  selectOnly: (ids: Iterable<number>) => void;
};

/** The tasks ticked on the list, by id. A selection belongs to the page it was made on: a new `page` clears it. */
export function useSelection(page: string): Selection {
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  useEffect(() => setSelected(new Set()), [page]);
  const select = (id: number, on: boolean) =>
    setSelected((now) => {
      const next = new Set(now);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  return { selected, select, selectOnly: (ids) => setSelected(new Set(ids)) };
}
