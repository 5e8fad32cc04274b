import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import { ActionOutcome } from "../ui/form.tsx";
import { attachmentName, saveFile } from "./save-file.ts";

/** The formats of `GET /api/tasks/{id}/download/{format}` (the task's `export.allowed_formats`), in the order the buttons show them. */
const formats = ["txt", "srt", "vtt", "csv", "json", "pdf", "docx"] as const;
type Format = (typeof formats)[number];

/**
 * pdf and docx are rendered by a worker: until the current transcript's file exists the API answers 202
 * (`Retry-After: 3`). We ask again after 1 s, then 2, 4, 8 and every 10 s: a short transcript is ready within
 * a second or two, a day of speech takes longer, and nobody waits more than about two minutes on a button.
 */
const pollDelays = [1000, 2000, 4000, 8000];
const pollCeiling = 10_000;
const giveUpAfter = 120_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Outcome = { status: "saved"; name: string } | { status: "gave-up" } | { status: "left" };

/** Fetches the export (with the session's token), asking again while it is being prepared, and saves it. */
async function download(task: { id: number; name: string }, format: Format, stillWanted: () => boolean, preparing: () => void): Promise<Outcome> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const pending = api.GET("/api/tasks/{id}/download/{format}", { params: { path: { id: task.id, format } }, parseAs: "blob" });
    const file = await call(pending);
    const { response } = await pending;
    if (!stillWanted()) return { status: "left" };
    if (response.status !== 202) {
      const name = attachmentName(response.headers.get("content-disposition"), `${task.name || "transcript"}.${format}`);
      saveFile(file, name);
      return { status: "saved", name };
    }
    if (Date.now() - started > giveUpAfter) return { status: "gave-up" };
    preparing();
    await sleep(pollDelays[attempt] ?? pollCeiling);
    if (!stillWanted()) return { status: "left" };
  }
}

/**
 * A button per export format. Each saves the file under the name the API gives it; pdf and docx may first say
 * "Preparing…" (the button is marked busy, and the status line says so for screen readers) until the worker
 * has made the file. Pressing a busy button again does nothing more.
 */
export function Exports({ task }: { task: { id: number; name: string } }) {
  const [busy, setBusy] = useState<ReadonlySet<Format>>(new Set());
  const [preparing, setPreparing] = useState<ReadonlySet<Format>>(new Set());
  const [message, setMessage] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const without = (set: ReadonlySet<Format>, format: Format) => new Set([...set].filter((f) => f !== format));

  const start = async (format: Format) => {
    if (busy.has(format)) return;
    const label = format.toUpperCase();
    setBusy((current) => new Set([...current, format]));
    setProblem(null);
    setMessage(`Downloading the ${label}…`);
    try {
      const outcome = await download(
        task,
        format,
        () => mounted.current,
        () => {
          setPreparing((current) => new Set([...current, format]));
          setMessage(`Preparing the ${label}… It downloads when it is ready.`);
        },
      );
      if (outcome.status === "left") return;
      if (outcome.status === "saved") setMessage(`Downloaded “${outcome.name}”.`);
      else setProblem(`The ${label} is taking longer than usual. Please try again in a few minutes.`);
    } catch (error) {
      if (!mounted.current) return;
      setMessage("");
      setProblem(ApiError.of(error).message);
    }
    setBusy((current) => without(current, format));
    setPreparing((current) => without(current, format));
  };

  return (
    <section aria-labelledby="exports" class="exports">
      <h2 id="exports">Export</h2>
      <ul class="actions" aria-label="Download the transcript as">
        {formats.map((format) => (
          <li key={format}>
            <button type="button" aria-busy={busy.has(format)} aria-describedby="exports-status" onClick={() => start(format)}>
              {format.toUpperCase()}
              {preparing.has(format) && (
                <span class="preparing" aria-hidden="true">
                  {" "}
                  Preparing…
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
      <ActionOutcome id="exports-status" message={message} problem={problem} />
    </section>
  );
}
