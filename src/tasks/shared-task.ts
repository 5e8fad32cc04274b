import type { DocumentStore } from "../readmodels/port.ts";
import type { TaskDocument } from "./tasks-projection.ts";

/** The task behind a share link while it is shared; null when it never was, is no longer, or is gone. */
export async function findSharedTask(db: DocumentStore, id: number): Promise<TaskDocument | null> {
  const task = await db.collection<TaskDocument>("tasks").findOne({ _id: String(id) });
  return task?.shared ? task : null;
}
