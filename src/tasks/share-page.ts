type Shared = {
  name: string;
  duration: number;
  created_at: string;
  summary: string | null;
  segments: { start: number; end: number; text: string; speaker: string | null }[];
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, "0");
  const ss = String(s % 60).padStart(2, "0");
  return hh > 0 ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** A plain, script-free page: everything from the transcript is escaped. */
export function sharePage(task: Shared): string {
  const rows = task.segments
    .map((s) => `<p><time>${clock(s.start)}</time>${s.speaker ? ` <b>${escapeHtml(s.speaker)}</b>` : ""} ${escapeHtml(s.text)}</p>`)
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(task.name)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#222}time{color:#777;font-variant-numeric:tabular-nums;margin-right:.5rem}.summary{background:#f5f5f5;padding:1rem;border-radius:.5rem}</style>
</head><body>
<h1>${escapeHtml(task.name)}</h1>
<p>${escapeHtml(new Date(task.created_at).toUTCString())} · ${clock(task.duration * 1000)}</p>
${task.summary ? `<section class="summary"><h2>Summary</h2><p>${escapeHtml(task.summary)}</p></section>` : ""}
<section><h2>Transcript</h2>
${rows || "<p>No transcript yet.</p>"}
</section>
</body></html>`;
}
