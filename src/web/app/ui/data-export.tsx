/**
 * "Download my data": a plain link to `GET /api/user/export`, not a fetch. The browser sends the session cookie with
 * it (same origin; a GET passes the cross-site check), saves the zip straight to disk as it streams, and shows the
 * download's progress itself: nothing of it passes through this page's memory, however large the account. The answer
 * names the file (`scribe-data-<date>.zip`); `download` keeps the page where it is whatever comes back.
 */
export function DataExport() {
  return (
    <section aria-labelledby="data-export">
      <h2 id="data-export">Your data</h2>
      <p>
        A copy of everything in your account as one zip file: your profile, and for every task its details, transcript (as JSON with word times, and as SRT
        subtitles), summary, mind map and original media. A README inside says what each file is. With many recordings it is large: it downloads at your
        connection's pace, one download at a time.
      </p>
      <p>
        <a href="/api/user/export" download>
          Download my data
        </a>
      </p>
    </section>
  );
}
