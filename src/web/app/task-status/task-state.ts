import type { components } from "../../../../clients/typescript/client.ts";

/** A task's status as the API's document lists them. */
export type TaskState = components["schemas"]["Task"]["status"];

const taskStates: readonly string[] = ["pending", "waiting", "scribing", "finished", "failed"] satisfies TaskState[];

export const isTaskState = (value: unknown): value is TaskState => typeof value === "string" && taskStates.includes(value);
