/**
 * No lost edits, in Chromium with a newcomer's settings (the app at 127.0.0.1, no PUBLIC_URL, the default
 * limits): two tabs on one transcript. Tab 2 saves an edit; tab 1, opened before it, then saves its own: the save
 * carried the version tab 1 read (If-Match), so it gets 412, and tab 1 shows the newer text with a choice. "Reapply"
 * saves tab 1's change on top of the newer transcript; "Discard" keeps the newer text. And an unsaved edit in an open
 * editor is not lost without a word: a reload asks first (beforeunload), and so does a link of the app (confirm).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, untilInPage, type BrowserHarness } from "../support/browser.ts";
import { UploadClient } from "../support/upload-client.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

setDefaultTimeout(60_000);

const sentences = ["The meeting opens at nine.", "The budget is discussed next.", "Questions close the meeting."];
type Segment = { id: number; text: string };

describe.skipIf(!haveChromium)("two tabs on one transcript", () => {
  let web: BrowserHarness;
  let client: UploadClient;
  let taskId: number;
  let tab1: Page;
  let tab2: Page;

  /** The transcript as the server has it now. */
  const serverTexts = async () => (await client.json<{ segments: Segment[] }>("GET", `/api/tasks/${taskId}`)).segments.map((s) => s.text);

  const openTranscript = async (page: Page) => {
    await page.goto(`/tasks/${taskId}`);
    // The transcript is drawn once the task has finished (the page follows it there).
    await page.getByRole("button", { name: "Edit segment at 0:00" }).waitFor({ timeout: 30_000 });
  };

  /**
   * Opens the editor of the segment at `at` (0:00, 0:04, 0:08) and types `text` into it, as a person does: in the tab
   * in front. Chromium throttles the tab behind, where each click and keystroke of playwright's took about 2 s.
   */
  const type = async (page: Page, at: string, text: string) => {
    await page.bringToFront();
    await page.getByRole("button", { name: `Edit segment at ${at}` }).click();
    const box = page.getByLabel(`Text at ${at}`);
    await box.fill("");
    await box.pressSequentially(text);
  };

  /** A segment's text in the transcript (plain text here: the made-up media has no player, so no seek buttons). */
  const inTranscript = (page: Page, text: string) => page.locator("ol.segments").getByText(text, { exact: true });

  /** Saves the open editor, in the tab brought to the front as `type` does. */
  const save = async (page: Page) => {
    await page.bringToFront();
    await page.getByRole("button", { name: "Save", exact: true }).click();
  };

  beforeAll(async () => {
    web = await startBrowserHarness();
    const session = await registerThroughForm(web.page, { name: "Two Tabs", email: `tabs-${crypto.randomUUID()}@example.com` });
    client = new UploadClient(web.service.url, session.headers);
    const segments = sentences.map((text, i) => ({ start: i * 4000, end: i * 4000 + 3500, text }));
    // A supplied transcript: the task goes straight to finished, no recognition needed.
    taskId = (await client.json<{ id: number }>("POST", "/api/tasks", { disk: "objstore", name: "Board meeting", path: "uploads/board.mp3", segments }, 201))
      .id;
    tab1 = web.page;
    tab2 = await web.context.newPage();
    tab2.setDefaultTimeout(20_000);
  }, 90_000);
  afterAll(async () => {
    await web?.close();
  });

  test("a stale save from the older tab shows the newer text; Reapply saves the change on top of it", async () => {
    web.checkpoint();
    await openTranscript(tab1);
    await openTranscript(tab2);
    // Tab 1 starts an edit of the first segment; meanwhile tab 2 saves an edit of the second.
    await type(tab1, "0:00", "The meeting opens at ten.");
    await type(tab2, "0:04", "The budget comes first.");
    await save(tab2);
    await tab2.getByRole("button", { name: "Edit segment at 0:04" }).waitFor();
    expect(await serverTexts()).toEqual([sentences[0]!, "The budget comes first.", sentences[2]!]);

    // Tab 1's save was made on the version it read: refused, and the newer transcript is shown with a choice.
    await save(tab1);
    const notice = tab1.getByRole("region", { name: /Changed elsewhere/ });
    await notice.waitFor();
    await untilInPage(tab1, 'document.activeElement?.id === "edit-conflict-title"');
    await inTranscript(tab1, "The budget comes first.").waitFor();
    expect(await notice.getByText("The meeting opens at ten.").count()).toBe(1);
    expect(await serverTexts()).toEqual([sentences[0]!, "The budget comes first.", sentences[2]!]);

    await notice.getByRole("button", { name: "Reapply my change" }).click();
    await tab1.getByText(/is saved on the newer transcript/).waitFor();
    // Both changes are in, on the page and on the server; the keyboard is back at the segment's Edit button.
    expect(await serverTexts()).toEqual(["The meeting opens at ten.", "The budget comes first.", sentences[2]!]);
    await inTranscript(tab1, "The meeting opens at ten.").waitFor();
    await untilInPage(tab1, 'document.activeElement?.getAttribute("aria-label") === "Edit segment at 0:00"');
    web.expectClean();
  });

  test("Discard keeps the newer text", async () => {
    web.checkpoint();
    // Tab 2 still shows the transcript before tab 1's reapplied edit: its save is stale too, and it reapplies on top.
    await type(tab2, "0:08", "Questions end it.");
    await save(tab2);
    await tab2
      .getByRole("region", { name: /Changed elsewhere/ })
      .getByRole("button", { name: "Reapply my change" })
      .click();
    await tab2.getByText(/is saved on the newer transcript/).waitFor();
    expect(await serverTexts()).toEqual(["The meeting opens at ten.", "The budget comes first.", "Questions end it."]);

    // Tab 1 edits the segment tab 2 just changed, on what it read before: refused; it discards its change.
    await type(tab1, "0:08", "Questions and answers close it.");
    await save(tab1);
    const notice = tab1.getByRole("region", { name: /Changed elsewhere/ });
    await notice.waitFor();
    expect(await notice.getByText("Questions end it.").count()).toBe(1);
    expect(await notice.getByText("Questions and answers close it.").count()).toBe(1);
    await notice.getByRole("button", { name: "Discard my change" }).click();
    await tab1.getByText(/is discarded; the newer transcript stays/).waitFor();
    await inTranscript(tab1, "Questions end it.").waitFor();
    expect(await serverTexts()).toEqual(["The meeting opens at ten.", "The budget comes first.", "Questions end it."]);
    // With the newer version in hand, tab 1's next edit saves at once.
    await type(tab1, "0:04", "The budget is approved.");
    await save(tab1);
    await inTranscript(tab1, "The budget is approved.").waitFor();
    expect(await tab1.getByRole("region", { name: /Changed elsewhere/ }).count()).toBe(0);
    expect(await serverTexts()).toEqual(["The meeting opens at ten.", "The budget is approved.", "Questions end it."]);
    web.expectClean();
  });

  test("an unsaved edit asks before a reload, a link of the app and going back; staying keeps the text", async () => {
    web.checkpoint();
    const dialogs: string[] = [];
    let answer: "stay" | "leave" = "stay";
    tab1.on("dialog", (dialog) => {
      dialogs.push(dialog.type());
      void (answer === "stay" ? dialog.dismiss() : dialog.accept());
    });
    // Into the transcript from the list, within the app: going back is then the router's too.
    await tab1.goto("/");
    await tab1.getByRole("link", { name: "Board meeting" }).click();
    await tab1.getByRole("button", { name: "Edit segment at 0:00" }).waitFor();
    await type(tab1, "0:00", "Words not saved yet.");

    // A reload: the browser's own prompt (beforeunload); staying keeps the page and the typed text.
    void tab1.evaluate("location.reload()").catch(() => undefined);
    await until(() => dialogs.includes("beforeunload"));
    expect(await tab1.getByLabel("Text at 0:00").inputValue()).toBe("Words not saved yet.");

    // A link of the app (the router's, no page load): confirm; staying keeps the page and the text.
    await tab1.getByRole("link", { name: "Transcriptions" }).click();
    await until(() => dialogs.includes("confirm"));
    expect(new URL(tab1.url()).pathname).toBe(`/tasks/${taskId}`);
    expect(await tab1.getByLabel("Text at 0:00").inputValue()).toBe("Words not saved yet.");

    // Back, within the app: confirm too; staying puts the address back.
    await tab1.evaluate("history.back()");
    await until(() => dialogs.filter((type) => type === "confirm").length === 2);
    await untilInPage(tab1, `location.pathname === "/tasks/${taskId}"`);
    expect(await tab1.getByLabel("Text at 0:00").inputValue()).toBe("Words not saved yet.");

    // Leaving when told to: the list, and no prompt there any more.
    answer = "leave";
    await tab1.getByRole("link", { name: "Transcriptions" }).click();
    await tab1.getByRole("heading", { name: "Transcriptions" }).waitFor();
    const asked = dialogs.length;
    await tab1.reload();
    await tab1.getByRole("heading", { name: "Transcriptions" }).waitFor();
    expect(dialogs.length).toBe(asked);
    expect(await serverTexts()).toEqual(["The meeting opens at ten.", "The budget is approved.", "Questions end it."]);
    web.expectClean();
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(25);
  }
}
