import type { BrowserContext, Page } from "playwright-core";

/**
 * What a task's page shows over time, recorded in the page itself (an init script, so it survives nothing but a
 * reload, which is the point: the page must follow its task without one). The test and the bench read it back:
 * - `lastByte`: when the browser finished sending an upload's last part (an XHR's upload `load`);
 * - `drawn`: when the first transcript segment was on the page;
 *   both in ms since the epoch (the page's high-resolution clock from its origin), comparable with the server's times;
 * - `stages`: each text the page's live region (`.task-stage`, role status) took, in order, and `stageTimes` when;
 * - `loadedAt`: the document's start, which a reload would change.
 * (A string: the tests' TypeScript has no DOM.)
 */
const script = `
  window.taskPage = { lastByte: null, drawn: null, stages: [], stageTimes: [], loadedAt: performance.timeOrigin };
  const now = () => performance.timeOrigin + performance.now();
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (body) {
    if (body) this.upload.addEventListener("load", () => { window.taskPage.lastByte = now(); });
    return send.call(this, body);
  };
  new MutationObserver(() => {
    const seen = window.taskPage;
    if (seen.drawn === null && document.querySelector("ol.segments li")) seen.drawn = now();
    const stage = document.querySelector(".task-stage")?.textContent ?? "";
    if (stage && seen.stages[seen.stages.length - 1] !== stage) {
      seen.stages.push(stage);
      seen.stageTimes.push(now());
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

export type TaskPageTiming = { lastByte: number | null; drawn: number | null; stages: string[]; stageTimes: number[]; loadedAt: number };

export async function recordTaskPage(context: BrowserContext): Promise<void> {
  await context.addInitScript(script);
}

export function taskPageTiming(page: Page): Promise<TaskPageTiming> {
  return page.evaluate<TaskPageTiming>("window.taskPage");
}
