import { useTitle } from "../ui/navigation.tsx";

/** The task list: where a signed-in user lands. Its list, filters and paging are built on this page. */
export function TaskList() {
  useTitle("Transcriptions");
  return (
    <section>
      <h1>Transcriptions</h1>
      <p>
        Your transcriptions will be listed here. <a href="/new">Start a new transcription</a>.
      </p>
    </section>
  );
}
