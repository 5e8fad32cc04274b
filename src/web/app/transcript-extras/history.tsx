import { useEffect, useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import { session } from "../session.ts";
import { dateTime } from "../ui/format.ts";
import { actorInWords, eventDetail, eventInWords } from "./event-words.ts";

type HistoryEvent = { id: string; type: string; time: string; user_id: number | null; system: string | null; data: Record<string, unknown> };

/**
 * `GET /api/tasks/{id}/history` as a timeline, oldest first: when, what in words, and who acted (in people's words,
 * event-words.ts). It is read again whenever the task changes (`version`: its `updated_at`), so an edit shows up on
 * the timeline.
 */
export function History({ taskId, version }: { taskId: number; version: string }) {
  const [events, setEvents] = useState<HistoryEvent[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    call(api.GET("/api/tasks/{id}/history", { params: { path: { id: taskId } } }))
      .then((loaded) => current && setEvents(loaded))
      .catch((error: unknown) => current && setProblem(ApiError.of(error).message));
    return () => {
      current = false;
    };
  }, [taskId, version]);
  const me = session.current()?.user.id ?? null;
  return (
    <section aria-labelledby="history" class="history">
      <h2 id="history">History</h2>
      {problem && <p class="form-error">{problem}</p>}
      {events === null && !problem && <p class="muted">Loading the history…</p>}
      {events && (
        <ol class="timeline" aria-label="Events of this transcription, oldest first">
          {events.map((event) => {
            const more = eventDetail(event);
            return (
              <li key={event.id}>
                <time dateTime={event.time}>{dateTime(event.time)}</time>
                <span class="what">
                  {eventInWords(event.type)}
                  {more && <span class="muted"> · {more}</span>}
                </span>
                <span class="who">by {actorInWords(event, me)}</span>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
