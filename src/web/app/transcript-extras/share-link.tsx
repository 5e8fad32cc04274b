import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import { ActionOutcome } from "../ui/form.tsx";

type Shared = { url: string; copied: boolean };

/**
 * "Copy share link": `GET /api/tasks/{id}/share-url` shares the task (a public, read-only page) and names the
 * link, which goes to the clipboard. Where the browser refuses the clipboard (no permission, an insecure
 * origin) the link is shown selected in a field, ready for Ctrl+C. "Stop sharing" takes the page down.
 */
export function ShareLink({ taskId, onChange }: { taskId: number; onChange?: () => void }) {
  const [shared, setShared] = useState<Shared | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);

  // The field appears with the link selected when copying failed: focus moves there, so Ctrl+C is all it takes.
  useLayoutEffect(() => {
    if (shared && !shared.copied) {
      field.current?.focus();
      field.current?.select();
    }
  }, [shared]);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(null);
    try {
      await work();
      onChange?.();
    } catch (error) {
      setProblem(ApiError.of(error).message);
    }
    setBusy(false);
  };

  const copy = () =>
    act(async () => {
      const { share_url: url } = await call(api.GET("/api/tasks/{id}/share-url", { params: { path: { id: taskId } } }));
      const copied = await navigator.clipboard
        ?.writeText(url)
        .then(() => true)
        .catch(() => false);
      setShared({ url, copied: copied === true });
      setMessage(
        copied ? "Share link copied. Anyone with the link can read this transcript." : "Copy the selected link. Anyone with it can read this transcript.",
      );
    });

  const stop = () =>
    act(async () => {
      await call(api.DELETE("/api/tasks/{id}/share-url", { params: { path: { id: taskId } } }));
      setShared(null);
      setMessage("The transcript is no longer shared: its link shows nothing now.");
    });

  return (
    <section aria-labelledby="sharing" class="sharing">
      <h2 id="sharing">Share</h2>
      <p class="actions">
        <button type="button" onClick={copy} disabled={busy} aria-busy={busy}>
          Copy share link
        </button>
        {shared && (
          <button type="button" onClick={stop} disabled={busy}>
            Stop sharing
          </button>
        )}
      </p>
      {shared && (
        <div class="field">
          <label for="share-link">Share link</label>
          <input id="share-link" ref={field} type="url" readOnly value={shared.url} onFocus={(event) => event.currentTarget.select()} />
        </div>
      )}
      <ActionOutcome message={message} problem={problem} />
    </section>
  );
}
