/* A task's rename on the version the page shows. Nothing here uses the DOM or the API client, so unit tests import it as it is. */
import { ApiError } from "../api-errors.ts";

type Named = { id: number; name: string };

/** How the page saves and reads its task: `save` is `PATCH /api/tasks/{id}` {name} made on `base`'s version (If-Match). */
export type RenameWays<T extends Named> = { save: (name: string, base: T) => Promise<T>; read: () => Promise<T> };

export type RenameOutcome<T> = { renamed: T } | { renamedElsewhere: T };

/**
 * Renames the task the page shows (`shown`) to `name`, on the version shown. A 412 says the task changed since: it
 * is read again, and while its name is still the one the user started from (its transcript, summary or status moved
 * on), the rename is made on the newer version. If it was renamed elsewhere meanwhile, that is the outcome, with the
 * newer task, for the user to decide again; renamed elsewhere to the very name asked for, it is done.
 */
export async function renameTask<T extends Named>(shown: T, name: string, ways: RenameWays<T>): Promise<RenameOutcome<T>> {
  let base = shown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return { renamed: await ways.save(name, base) };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 412) throw error;
      const fresh = await ways.read();
      if (fresh.name === name) return { renamed: fresh };
      if (fresh.name !== shown.name) return { renamedElsewhere: fresh };
      base = fresh;
    }
  }
  throw new ApiError(412, "The task keeps changing elsewhere; try again in a moment.");
}

/** What a rename that met another one says, next to the name field. */
export const renamedElsewhere = (name: string) => `Meanwhile it was renamed to “${name}” elsewhere. Save again to give it your name instead.`;
