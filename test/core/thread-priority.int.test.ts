// Threads that work beside the event loop run behind it: the nice of each thread, as Linux reports it.
import { describe, expect, test } from "bun:test";
import { BackgroundThread } from "../../src/core/background-thread.ts";
import { backgroundWorkNice, realTimeWorkNice } from "../../src/core/thread-priority.ts";
import { threadNices } from "../support/thread-nices.ts";

const onLinux = process.platform === "linux";

describe.if(onLinux)("thread priority", () => {
  test("given a worker thread, when it lowers its priority, then that thread alone runs at the new nice", async () => {
    // The thread names itself, and stays until it is read: a worker with nothing left to do ends at once, and its
    // thread was sometimes gone from /proc before the test looked (a CI run failed so).
    const script = `import { dlopen, FFIType } from "bun:ffi";
      import { lowerThisThreadPriority } from ${JSON.stringify(new URL("../../src/core/thread-priority.ts", import.meta.url).href)};
      const tid = dlopen("libc.so.6", { gettid: { args: [], returns: FFIType.i32 } }).symbols.gettid();
      addEventListener("message", () => undefined);
      postMessage({ tid, lowered: lowerThisThreadPriority(${realTimeWorkNice}) });`;
    const worker = new Worker(URL.createObjectURL(new Blob([script], { type: "application/typescript" })));
    const { tid, lowered } = await new Promise<{ tid: number; lowered: boolean }>((resolve) => {
      worker.onmessage = (event: MessageEvent<{ tid: number; lowered: boolean }>) => resolve(event.data);
    });
    const after = threadNices();
    worker.terminate();
    expect(lowered).toBe(true);
    expect(tid).not.toBe(process.pid);
    expect(after.get(tid)).toBe(realTimeWorkNice);
    expect(after.get(process.pid)).toBe(0);
  });

  test("given a background thread (exports, summaries, diarization), when it has started, then it runs at the background nice", async () => {
    const thread = new BackgroundThread<number, number>(new URL("./fixtures/echo-thread.ts", import.meta.url), "echo");
    expect(await thread.run(7)).toBe(7);
    expect([...threadNices().values()]).toContain(backgroundWorkNice);
    expect(threadNices().get(process.pid)).toBe(0);
  });
});
