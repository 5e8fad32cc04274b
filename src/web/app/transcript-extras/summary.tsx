/** The task's summary, paragraph by paragraph as the summarizer wrote it; nothing when there is none yet. */
export function Summary({ text }: { text: string | null }) {
  if (text === null || text.trim() === "") return null;
  return (
    <section aria-labelledby="summary" class="summary">
      <h2 id="summary">Summary</h2>
      {text
        .split(/\n\s*\n/)
        .filter((paragraph) => paragraph.trim() !== "")
        .map((paragraph, index) => (
          <p key={index}>{paragraph.trim()}</p>
        ))}
    </section>
  );
}
