/** The task list's pure parts: its URL state and the Server-Sent Events reader of the status stream. */
import { describe, expect, test } from "bun:test";
import { readTaskQuery, taskListUrl } from "../../src/web/app/tasks/query.ts";
import { serverSentEvents } from "../../src/web/app/tasks/server-sent-events.ts";

describe("the task list's URL", () => {
  test("defaults are left out, a change starts at page 1 unless it names a page, nonsense falls back", () => {
    const query = readTaskQuery({ search: "talk", status: "failed", folder: "Work", page: "3", per_page: "10" });
    expect(query).toEqual({ search: "talk", status: "failed", folder: "Work", page: 3, perPage: 10 });
    expect(taskListUrl(query, { page: 3 })).toBe("/?search=talk&status=failed&folder=Work&page=3&per_page=10");
    expect(taskListUrl(query, { folder: null })).toBe("/?search=talk&status=failed&per_page=10");
    expect(readTaskQuery({ status: "bogus", page: "-1", per_page: "1000" })).toEqual({ search: "", status: "all", folder: null, page: 1, perPage: 100 });
    expect(taskListUrl(readTaskQuery({}))).toBe("/");
  });
});

describe("the status stream's reader", () => {
  test("events split across chunks, comments and retry skipped, CRLF accepted", async () => {
    const chunks = ["retry: 2000\n\n: heartbeat\n\nevent: sta", 'tus\ndata: {"status":"pending"}\n', "\nevent: status\r\ndata: a\r\ndata: b\r\n\r\n"];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    const seen = [];
    for await (const message of serverSentEvents(body)) seen.push(message);
    expect(seen).toEqual([
      { event: "status", data: '{"status":"pending"}' },
      { event: "status", data: "a\nb" },
    ]);
  });
});
