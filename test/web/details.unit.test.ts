/**
 * The pure parts of the web app's smaller things: who acted in a task's history, in people's words; which plans an
 * account is offered and their prices in words; a rename made on the version shown, after a 412.
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/web/app/api-errors.ts";
import { renameTask, type RenameWays } from "../../src/web/app/tasks/rename.ts";
import { actorInWords, eventInWords } from "../../src/web/app/transcript-extras/event-words.ts";
import { allowanceInWords, isUpgrade, priceInWords } from "../../src/web/app/ui/plans.ts";

describe("the history's actors in people's words", () => {
  const me = 7;
  test("the account itself is “you”; the operator (`bun run admin`) “an operator”; every part of the service “Scribe”", () => {
    expect(actorInWords({ user_id: 7, system: null }, me)).toBe("you");
    expect(actorInWords({ user_id: null, system: "operator" }, me)).toBe("an operator");
    for (const worker of ["transcription", "task-slots", "stuck-tasks", "summaries", "payment-provider", "exports", ""]) {
      expect(actorInWords({ user_id: null, system: worker }, me)).toBe("Scribe");
    }
    expect(actorInWords({ user_id: null, system: null }, me)).toBe("Scribe");
  });

  test("never a worker's name, nor another account's id", () => {
    expect(actorInWords({ user_id: 8, system: null }, me)).toBe("another account");
    expect(actorInWords({ user_id: 7, system: null }, null)).toBe("another account");
    expect(actorInWords({ user_id: null, system: "task-media" }, me)).not.toContain("task-media");
  });

  test("event types in words, and a type the app does not know split at its capitals", () => {
    expect(eventInWords("TaskRenamed")).toBe("Renamed");
    expect(eventInWords("TaskArchived")).toBe("Task archived");
  });
});

describe("plans and prices on the Account page", () => {
  test("checkout's Pro is offered below Pro only: not to Pro, Max, or a plan the app does not know", () => {
    expect(isUpgrade("free", "pro")).toBe(true);
    expect(isUpgrade("payg", "pro")).toBe(true);
    expect(isUpgrade("pro", "pro")).toBe(false);
    expect(isUpgrade("max", "pro")).toBe(false);
    expect(isUpgrade("enterprise", "pro")).toBe(false);
    expect(isUpgrade("free", "enterprise")).toBe(false);
    expect(isUpgrade("__proto__", "pro")).toBe(false);
  });

  test("prices in minor units, in words with their period; the currency's own decimals", () => {
    expect(priceInWords(1_500, "USD", "month")).toBe("$15.00 a month");
    expect(priceInWords(15_000, "USD", "year")).toBe("$150.00 a year");
    expect(priceInWords(100, "USD", "month")).toBe("$1.00 a month");
    expect(priceInWords(1_500, "JPY", "month")).toBe("¥1,500 a month");
    expect(priceInWords(990, "EUR", "none")).toBe("€9.90");
    // Not a currency code at all: still words, never an exception.
    expect(priceInWords(1_500, "<script>", "month")).toBe("15.00 <script> a month");
  });

  test("the monthly allowance in hours", () => {
    expect(allowanceInWords(72_000)).toBe("20 hours");
    expect(allowanceInWords(3_600)).toBe("1 hour");
    expect(allowanceInWords(1_800)).toBe("30 minutes");
  });
});

describe("renaming a task on the version shown", () => {
  type Task = { id: number; name: string; version: number };
  /** A server holding one task: a save made on an older version than its own is a 412. */
  function server(start: Task) {
    let task = start;
    const saves: { name: string; on: number }[] = [];
    const ways: RenameWays<Task> = {
      async save(name, base) {
        saves.push({ name, on: base.version });
        if (base.version !== task.version) throw new ApiError(412, "The task has changed since it was read.");
        task = { ...task, name, version: task.version + 1 };
        return task;
      },
      read: async () => task,
    };
    return {
      ways,
      saves,
      elsewhere: (change: Partial<Task>) => {
        task = { ...task, ...change, version: task.version + 1 };
      },
    };
  }
  const shown: Task = { id: 1, name: "Interview", version: 3 };

  test("saved on the version shown", async () => {
    const api = server(shown);
    expect(await renameTask(shown, "Talk", api.ways)).toEqual({ renamed: { id: 1, name: "Talk", version: 4 } });
    expect(api.saves).toEqual([{ name: "Talk", on: 3 }]);
  });

  test("the task moved on but kept its name (an edit, a summary): made again on the newer version", async () => {
    const api = server(shown);
    api.elsewhere({});
    expect(await renameTask(shown, "Talk", api.ways)).toEqual({ renamed: { id: 1, name: "Talk", version: 5 } });
    expect(api.saves).toEqual([
      { name: "Talk", on: 3 },
      { name: "Talk", on: 4 },
    ]);
  });

  test("renamed elsewhere meanwhile: not overwritten; the newer task comes back for the user to decide", async () => {
    const api = server(shown);
    api.elsewhere({ name: "Their name" });
    expect(await renameTask(shown, "Talk", api.ways)).toEqual({ renamedElsewhere: { id: 1, name: "Their name", version: 4 } });
    expect(api.saves).toHaveLength(1);
  });

  test("renamed elsewhere to the very name asked for: done", async () => {
    const api = server(shown);
    api.elsewhere({ name: "Talk" });
    expect(await renameTask(shown, "Talk", api.ways)).toEqual({ renamed: { id: 1, name: "Talk", version: 4 } });
  });

  test("other refusals (a 422 beside the field) are the caller's to show; a task that keeps changing gives up after 3 tries", async () => {
    const refused = new ApiError(422, "The name field is required.", { name: ["The name field is required."] });
    const failing: RenameWays<Task> = {
      save: async () => {
        throw refused;
      },
      read: async () => shown,
    };
    await expect(renameTask(shown, "", failing)).rejects.toBe(refused);
    let version = 3;
    const busy: RenameWays<Task> = {
      save: async () => {
        throw new ApiError(412, "changed");
      },
      read: async () => ({ ...shown, version: ++version }),
    };
    const error = await renameTask(shown, "Talk", busy).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(412);
  });
});
